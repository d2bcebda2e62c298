package io.heliotrope.cli.transfer;

import io.heliotrope.cli.print.Progress;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code helio image import} and {@code export}: copies between a file and an image's
 * NBD export at a site, which with a controller holds the image's write lease while
 * the copy runs, as for any NBD client. Raw files are copied by {@link RawImport} and
 * {@link RawExport}; other formats by qemu-img. What a failed or interrupted (Ctrl-C)
 * copy made is removed: the new image of an import, the file of an export.
 */
public final class ImageTransfer {
    /** How long the undoing of a failed copy waits for the site to let go of the image (its session ends after the last disconnect). */
    private static final Duration UNDO_PATIENCE = Duration.ofSeconds(30);
    private static final long RETRY_MILLIS = 100;

    /** @param dataBytes bytes of data sent or written, or -1 when qemu-img moved them */
    public record Result(long sizeBytes, long dataBytes, ImageFormat format) {}

    /** Where an import creates its image and fills it: the controller's catalog and one of its sites, or a standalone site. */
    public interface Destination {
        /** Creates an empty image and returns where it is served. */
        NbdImage create(String name, long sizeBytes);

        void remove(String name);
    }

    private ImageTransfer() {}

    /**
     * Creates image {@code name} from {@code file}, in {@code format}, or the format its
     * first bytes show when null. The size is the file's for raw, the virtual size for
     * other formats, rounded up to whole blocks.
     */
    public static Result importFile(Destination destination, Path file, String name, ImageFormat format, boolean showProgress)
            throws IOException, InterruptedException {
        checkReadable(file);
        ImageFormat actual;
        long fileSize;
        try {
            actual = format != null ? format : ImageFormat.detect(file);
            fileSize = Files.size(file);
        } catch (IOException e) {
            throw TransferErrors.file("read", file, e);
        }
        QemuImg qemuImg = actual == ImageFormat.RAW ? null : QemuImg.find("importing a " + actual.qemuName() + " image");
        long sourceSize = qemuImg == null ? fileSize : qemuImg.virtualSize(file, actual);
        long size = Math.max(RawImport.BLOCK, (sourceSize + RawImport.BLOCK - 1) / RawImport.BLOCK * RawImport.BLOCK);
        NbdImage image = destination.create(name, size);
        try (Progress progress = Progress.start(name, size, showProgress)) {
            Copy copy = qemuImg == null ? new RawImport(file, fileSize, image, progress)
                    : qemuImg.convert(List.of("-n", "--target-is-zero", "-W", "-f", actual.qemuName(), "-O", "raw", file.toString(), image.uri()), progress);
            long data = run(copy, image, () -> removeImage(destination, name));
            return new Result(size, data, actual);
        }
    }

    /**
     * Writes {@code image} to {@code file}, in {@code format}, or the format its name
     * suggests ({@code .qcow2}, ...; raw otherwise) when null. A raw file keeps the image's
     * zero ranges as holes.
     */
    public static Result exportImage(NbdImage image, Path file, ImageFormat format, boolean force, boolean showProgress)
            throws IOException, InterruptedException {
        if (Files.exists(file) && !force) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "cannot export to " + file + ": it exists (use --force to overwrite)");
        }
        ImageFormat actual = format != null ? format : ImageFormat.ofFileName(file);
        QemuImg qemuImg = actual == ImageFormat.RAW ? null : QemuImg.find("exporting to a " + actual.qemuName() + " image");
        long size;
        try {
            size = RawExport.size(image);
        } catch (IOException e) {
            throw TransferErrors.copy(e, image);
        }
        try (Progress progress = Progress.start(image.name(), size, showProgress)) {
            if (qemuImg != null) {
                Copy copy = qemuImg.convert(List.of("-f", "raw", "-O", actual.qemuName(), image.uri(), file.toString()), progress);
                return new Result(size, run(copy, image, () -> deleteFile(file)), actual);
            }
            try (RandomAccessFile target = open(file, size)) {
                Copy copy = new RawExport(image, file, target.getChannel(), progress);
                return new Result(size, run(copy, image, () -> deleteFile(file)), actual);
            }
        }
    }

    private static void checkReadable(Path file) {
        if (!Files.exists(file)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "cannot import " + file + ": no such file");
        }
        if (!Files.isRegularFile(file)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "cannot import " + file + ": not a regular file");
        }
        if (!Files.isReadable(file)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "cannot import " + file + ": permission denied");
        }
    }

    private static RandomAccessFile open(Path file, long size) {
        try {
            RandomAccessFile target = new RandomAccessFile(file.toFile(), "rw");
            try {
                target.setLength(0);
                target.setLength(size);
                return target;
            } catch (IOException e) {
                target.close();
                throw e;
            }
        } catch (IOException e) {
            throw TransferErrors.file("write", file, e);
        }
    }

    /**
     * Runs {@code copy}; if it fails, or Ctrl-C ends the process meanwhile, {@code undo}
     * runs before the process ends, and the failure says what it undid. After Ctrl-C the
     * shutdown hook reports it, once the undo is done, and this thread waits for the end.
     */
    private static long run(Copy copy, NbdImage image, Undo undo) throws InterruptedException {
        CountDownLatch settled = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicReference<String> report = new AtomicReference<>();
        Thread hook = new Thread(() -> {
            interrupted.set(true);
            copy.abort();
            try {
                if (settled.await(UNDO_PATIENCE.toSeconds() + 5, TimeUnit.SECONDS) && report.get() != null) {
                    System.err.println("helio: " + report.get());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "interrupted-copy");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return copy.run();
        } catch (IOException | RuntimeException e) {
            HeliotropeException failure = interrupted.get() ? new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "interrupted", e)
                    : TransferErrors.copy(e, image);
            String outcome;
            try {
                outcome = undo.run();
            } catch (IOException | RuntimeException | InterruptedException undoFailed) {
                outcome = "and undoing failed: " + HeliotropeException.rootMessage(undoFailed);
                failure.addSuppressed(undoFailed);
            }
            String message = failure.getMessage() + (outcome == null ? "" : " (" + outcome + ")");
            if (interrupted.get()) {
                report.set(message);
                settled.countDown();
                new CountDownLatch(1).await();
            }
            throw new HeliotropeException(failure.code(), message, failure);
        } finally {
            settled.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook runs, or ran: it waits for the undo, which is done.
            }
        }
    }

    /** Undoes what a failed copy made; says what it undid, or null when there was nothing to undo. */
    private interface Undo {
        String run() throws IOException, InterruptedException;
    }

    /** Removes the image of a failed import, waiting while the site still has it open (it ends the session once the last connection is gone). */
    private static String removeImage(Destination destination, String name) throws InterruptedException {
        long deadline = System.nanoTime() + UNDO_PATIENCE.toNanos();
        while (true) {
            try {
                destination.remove(name);
                return "the new image '" + name + "' is removed";
            } catch (HeliotropeException e) {
                boolean held = e.code() == ErrorCode.IMAGE_IN_USE || e.code() == ErrorCode.LEASE_HELD;
                if (!held || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            Thread.sleep(RETRY_MILLIS);
        }
    }

    private static String deleteFile(Path file) throws IOException {
        return Files.deleteIfExists(file) ? file + " is removed" : null;
    }
}
