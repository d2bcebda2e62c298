package io.heliotrope.cli;

import com.google.protobuf.ByteString;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.storage.v1.Extent;
import io.heliotrope.proto.storage.v1.ReadBlocksResponse;
import io.heliotrope.proto.storage.v1.WriteBlocksRequest;
import io.heliotrope.proto.storage.v1.WriteBlocksResponse;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;

/** Sparse-aware copies between raw files and images, over the image service's block streams. */
final class ImageTransfer {
    private static final int BLOCK = 4096;
    private static final int MESSAGE_BYTES = 1 << 20;

    record Result(long sizeBytes, long dataBytes) {}

    private ImageTransfer() {}

    /** Creates image {@code name} in {@code catalog} and fills it from {@code file} through the site of {@code client}. */
    static Result importFile(ImageCatalog catalog, ImageClient client, Path file, String name) throws IOException, InterruptedException {
        if (!Files.isRegularFile(file)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "cannot import " + file + ": not a readable file");
        }
        long fileSize = Files.size(file);
        long size = Math.max(BLOCK, (fileSize + BLOCK - 1) / BLOCK * BLOCK);
        catalog.createImage(name, size);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            Upload upload = new Upload();
            client.async().writeBlocks(upload);
            upload.send(WriteBlocksRequest.newBuilder().setName(name).build());
            long dataBytes = 0;
            ByteBuffer buffer = ByteBuffer.allocate(MESSAGE_BYTES);
            for (long offset = 0; offset < size; offset += MESSAGE_BYTES) {
                buffer.clear();
                while (buffer.hasRemaining() && channel.read(buffer, offset + buffer.position()) > 0) {
                    // keep reading until the chunk is full or the file ends
                }
                int length = (buffer.position() + BLOCK - 1) / BLOCK * BLOCK;
                WriteBlocksRequest.Builder message = WriteBlocksRequest.newBuilder();
                dataBytes += addNonZeroRuns(buffer.array(), length, offset, message);
                if (message.getExtentsCount() > 0) {
                    upload.send(message.build());
                }
            }
            upload.finish();
            return new Result(size, dataBytes);
        } catch (RuntimeException e) {
            HeliotropeException failure = client.translate(HeliotropeException.unwrap(e));
            removeAfterFailure(catalog, name, failure);
            throw failure;
        } catch (IOException | InterruptedException e) {
            removeAfterFailure(catalog, name, e);
            throw e;
        }
    }

    /** A failed import leaves no half-filled image behind. */
    private static void removeAfterFailure(ImageCatalog catalog, String name, Exception failure) {
        try {
            catalog.removeImage(name);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /** Adds the runs of non-zero blocks of {@code data[0, length)} as extents; returns their bytes. */
    private static long addNonZeroRuns(byte[] data, int length, long baseOffset, WriteBlocksRequest.Builder message) {
        long bytes = 0;
        int runStart = -1;
        for (int at = 0; at <= length; at += BLOCK) {
            boolean data4k = at < length && !isZero(data, at);
            if (data4k && runStart < 0) {
                runStart = at;
            } else if (!data4k && runStart >= 0) {
                message.addExtents(Extent.newBuilder().setOffset(baseOffset + runStart).setData(ByteString.copyFrom(data, runStart, at - runStart)));
                bytes += at - runStart;
                runStart = -1;
            }
        }
        return bytes;
    }

    private static boolean isZero(byte[] data, int from) {
        for (int i = from; i < from + BLOCK; i++) {
            if (data[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** Writes image {@code name}, of {@code sizeBytes}, to {@code file} from the site of {@code client}, which need not hold a copy of it. */
    static Result exportFile(ImageClient client, String name, long sizeBytes, Path file, boolean force) throws IOException {
        if (Files.exists(file) && !force) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "cannot export to " + file + ": it exists (use --force to overwrite)");
        }
        long dataBytes = 0;
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(0);
            raf.setLength(sizeBytes);
            FileChannel channel = raf.getChannel();
            Iterator<ReadBlocksResponse> responses = client.readBlocks(name);
            while (client.call(responses::hasNext)) {
                for (Extent extent : responses.next().getExtentsList()) {
                    ByteBuffer data = extent.getData().asReadOnlyByteBuffer();
                    dataBytes += data.remaining();
                    long position = extent.getOffset();
                    while (data.hasRemaining()) {
                        position += channel.write(data, position);
                    }
                }
            }
            channel.force(true);
        }
        return new Result(sizeBytes, dataBytes);
    }

    /** A client stream that sends only while gRPC says the server keeps up. */
    private static final class Upload implements ClientResponseObserver<WriteBlocksRequest, WriteBlocksResponse> {
        private final CompletableFuture<WriteBlocksResponse> done = new CompletableFuture<>();
        private ClientCallStreamObserver<WriteBlocksRequest> stream;

        @Override
        public void beforeStart(ClientCallStreamObserver<WriteBlocksRequest> requestStream) {
            stream = requestStream;
            stream.setOnReadyHandler(this::wake);
        }

        synchronized void send(WriteBlocksRequest message) throws InterruptedException {
            while (!stream.isReady() && !done.isDone()) {
                wait();
            }
            if (done.isDone()) {
                done.join();
                throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "the server ended the import early");
            }
            stream.onNext(message);
        }

        void finish() {
            stream.onCompleted();
            done.join();
        }

        private synchronized void wake() {
            notifyAll();
        }

        @Override
        public void onNext(WriteBlocksResponse response) {
            done.complete(response);
        }

        @Override
        public void onError(Throwable failure) {
            done.completeExceptionally(failure);
            wake();
        }

        @Override
        public void onCompleted() {
            wake();
        }
    }
}
