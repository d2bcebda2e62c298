package io.heliotrope.nbd.server;

import io.heliotrope.nbd.BlockDescriptor;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.ExportCatalog;
import io.heliotrope.nbd.protocol.NbdCommand;
import io.heliotrope.nbd.protocol.NbdError;
import io.heliotrope.nbd.protocol.NbdErrors;
import io.heliotrope.nbd.protocol.NbdReply;
import io.heliotrope.nbd.protocol.NbdRequest;
import io.heliotrope.nbd.protocol.NbdSession;
import io.heliotrope.nbd.protocol.NbdSession.SelectedContext;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

import static io.heliotrope.nbd.protocol.NbdConstants.CMD_FLAG_FUA;
import static io.heliotrope.nbd.protocol.NbdConstants.CMD_FLAG_NO_HOLE;
import static io.heliotrope.nbd.protocol.NbdConstants.CMD_FLAG_REQ_ONE;
import static java.util.Objects.requireNonNull;

/**
 * Serves the requests of one connection: validates each once, calls the device, and
 * writes each reply when its future completes, so replies leave out of order. Replies
 * are flushed once per read burst, or once per batch of completions from other threads. Reading
 * pauses while too many requests or bytes are in flight or the client does not read
 * its replies. On DISC or a closed connection, outstanding requests finish before the
 * device is closed.
 */
public final class NbdTransmissionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(NbdTransmissionHandler.class);
    private static final int MAX_IN_FLIGHT = 256;
    private static final long MAX_IN_FLIGHT_BYTES = 64L * 1024 * 1024;
    private static final int ZERO_CHUNK = 1024 * 1024;
    private static final ByteBuf ZEROES = Unpooled.unreleasableBuffer(Unpooled.directBuffer(ZERO_CHUNK).writeZero(ZERO_CHUNK)).asReadOnly();

    private final NbdSession session;
    private final BlockDevice device;
    private final NbdMetrics metrics;
    private final UnaryOperator<Throwable> errors;

    private final Queue<Completion> completed = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();

    private ChannelHandlerContext ctx;
    private boolean reading;
    private int inFlight;
    private long inFlightBytes;
    private boolean disconnecting;
    private boolean deviceClosed;

    /** @param errors turns the device's failures into what the client is told ({@link ExportCatalog#translate}) */
    public NbdTransmissionHandler(NbdSession session, NbdMetrics metrics, UnaryOperator<Throwable> errors) {
        this.session = requireNonNull(session, "session is null");
        this.device = session.device();
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.errors = requireNonNull(errors, "errors is null");
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        metrics.connectionOpened();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof NbdRequest request)) {
            ReferenceCountUtil.release(msg);
            throw new IllegalStateException("unexpected message " + msg.getClass().getName());
        }
        if (!reading) {
            reading = true;
            device.startBatch();
        }
        long start = System.nanoTime();
        Optional<NbdCommand> maybeCommand = request.command();
        if (maybeCommand.isEmpty()) {
            metrics.recordUnknown();
            reply(new NbdReply.Simple(request.handle(), NbdError.EINVAL));
            request.release();
            return;
        }
        NbdCommand command = maybeCommand.get();
        NbdError invalid = RequestValidator.validate(request, command, session);
        if (invalid != NbdError.OK) {
            log.debug("{}: invalid {}: {}", session.exportName(), request, invalid);
            metrics.record(command, NbdMetrics.Outcome.INVALID, 0, start);
            reply(errorReply(command, request.handle(), invalid, "invalid request"));
            request.release();
            return;
        }
        if (command == NbdCommand.DISC) {
            request.release();
            disconnecting = true;
            ctx.channel().config().setAutoRead(false);
            closeWhenIdle();
            return;
        }
        CompletableFuture<NbdReply> future;
        try {
            future = execute(command, request);
        } catch (RuntimeException e) {
            future = CompletableFuture.failedFuture(e);
        }
        long bytes = command == NbdCommand.WRITE ? request.length() : 0;
        inFlight++;
        inFlightBytes += bytes;
        updateAutoRead();
        future.whenComplete((reply, failure) -> {
            Completion completion = new Completion(command, request, bytes, start, reply, failure);
            if (reading && ctx.executor().inEventLoop()) {
                complete(completion);
            } else {
                completed.add(completion);
                if (drainScheduled.compareAndSet(false, true)) {
                    ctx.executor().execute(this::drainCompleted);
                }
            }
        });
    }

    /** Writes the replies of requests completed on other threads, then flushes once. */
    private void drainCompleted() {
        drainScheduled.set(false);
        for (Completion completion; (completion = completed.poll()) != null; ) {
            complete(completion);
        }
        ctx.flush();
        closeWhenIdle();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (reading) {
            // Still reading: the writes the device runs now reply at once, and leave with the flush below.
            device.endBatch();
            reading = false;
        }
        ctx.flush();
        closeWhenIdle();
        ctx.fireChannelReadComplete();
    }

    private CompletableFuture<NbdReply> execute(NbdCommand command, NbdRequest request) {
        long handle = request.handle();
        long offset = request.offset();
        long length = request.length();
        boolean fua = request.hasFlag(CMD_FLAG_FUA);
        return switch (command) {
            case READ -> length == 0
                    ? CompletableFuture.completedFuture(new NbdReply.Read(handle, offset, Unpooled.EMPTY_BUFFER, session.structuredReplies()))
                    : device.read(offset, (int) length).thenApply(data -> new NbdReply.Read(handle, offset, data, session.structuredReplies()));
            case WRITE -> ok(handle, withFua(device.write(offset, request.payload(), fua && device.canFua()), fua));
            case FLUSH -> ok(handle, device.flush());
            case TRIM -> ok(handle, withFua(device.trim(offset, length, fua && device.canFua()), fua));
            case WRITE_ZEROES -> ok(handle, withFua(writeZeroes(offset, length, fua && device.canFua(), !request.hasFlag(CMD_FLAG_NO_HOLE)), fua));
            case CACHE -> ok(handle, device.canCache() ? device.cache(offset, length) : CompletableFuture.completedFuture(null));
            case BLOCK_STATUS -> blockStatus(handle, offset, length, request.hasFlag(CMD_FLAG_REQ_ONE));
            case DISC -> throw new AssertionError("DISC is not executed");
        };
    }

    private CompletableFuture<Void> withFua(CompletableFuture<Void> write, boolean fua) {
        return fua && !device.canFua() ? write.thenCompose(ignored -> device.flush()) : write;
    }

    private CompletableFuture<Void> writeZeroes(long offset, long length, boolean fua, boolean mayTrim) {
        if (device.canZero()) {
            return device.writeZeroes(offset, length, fua, mayTrim);
        }
        if (length == 0) {
            return CompletableFuture.completedFuture(null);
        }
        int chunk = (int) Math.min(length, ZERO_CHUNK);
        return device.write(offset, ZEROES.slice(0, chunk), fua)
                .thenCompose(ignored -> writeZeroes(offset + chunk, length - chunk, fua, mayTrim));
    }

    private static CompletableFuture<NbdReply> ok(long handle, CompletableFuture<Void> future) {
        return future.thenApply(ignored -> new NbdReply.Simple(handle, NbdError.OK));
    }

    /** Asks every selected context at once; the reply has their chunks in the order they were selected. */
    private CompletableFuture<NbdReply> blockStatus(long handle, long offset, long length, boolean onlyOne) {
        List<SelectedContext> contexts = session.metaContexts();
        List<CompletableFuture<List<BlockDescriptor>>> answers = new ArrayList<>(contexts.size());
        for (SelectedContext selected : contexts) {
            answers.add(selected.context().blockStatus(device, offset, length));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture<?>[]::new)).thenApply(ignored -> {
            List<NbdReply.ContextStatus> chunks = new ArrayList<>(contexts.size());
            for (int i = 0; i < contexts.size(); i++) {
                chunks.add(new NbdReply.ContextStatus(contexts.get(i).id(), clip(answers.get(i).join(), length, onlyOne)));
            }
            return new NbdReply.BlockStatus(handle, chunks);
        });
    }

    /** Keeps the descriptors inside the request, merges equal neighbours, and keeps one if asked. */
    static List<BlockDescriptor> clip(List<BlockDescriptor> descriptors, long length, boolean onlyOne) {
        List<BlockDescriptor> clipped = new ArrayList<>();
        long remaining = length;
        for (BlockDescriptor descriptor : descriptors) {
            if (remaining == 0) {
                break;
            }
            BlockDescriptor piece = descriptor.length() > remaining ? descriptor.withLength(remaining) : descriptor;
            remaining -= piece.length();
            int last = clipped.size() - 1;
            if (last >= 0 && clipped.get(last).flags() == piece.flags()) {
                clipped.set(last, piece.withLength(clipped.get(last).length() + piece.length()));
            } else {
                clipped.add(piece);
            }
        }
        if (clipped.isEmpty()) {
            throw new IllegalStateException("metadata context returned no status for " + length + " bytes");
        }
        return onlyOne ? List.of(clipped.get(0)) : clipped;
    }

    private record Completion(NbdCommand command, NbdRequest request, long bytes, long start, NbdReply reply, Throwable failure) {}

    private void complete(Completion completion) {
        NbdRequest request = completion.request();
        inFlight--;
        inFlightBytes -= completion.bytes();
        request.release();
        NbdReply reply = completion.reply();
        if (completion.failure() != null) {
            Throwable failure = errors.apply(completion.failure());
            NbdError error = NbdErrors.toNbdError(failure);
            if (NbdErrors.isFault(failure)) {
                log.warn("{}: {} failed with {} (a fault of ours)", session.exportName(), request, error, failure);
            } else {
                log.debug("{}: {} failed with {}", session.exportName(), request, error, failure);
            }
            metrics.record(completion.command(), NbdMetrics.Outcome.ERROR, 0, completion.start());
            reply = errorReply(completion.command(), request.handle(), error, NbdErrors.message(failure));
        } else {
            metrics.record(completion.command(), NbdMetrics.Outcome.OK, request.length(), completion.start());
        }
        reply(reply);
        updateAutoRead();
    }

    private NbdReply errorReply(NbdCommand command, long handle, NbdError error, String message) {
        boolean structuredCommand = command == NbdCommand.READ || command == NbdCommand.BLOCK_STATUS;
        return session.structuredReplies() && structuredCommand
                ? new NbdReply.StructuredError(handle, error, message)
                : new NbdReply.Simple(handle, error);
    }

    /** Writes a reply; it leaves at the next flush (end of the read burst, or of a completion drain). */
    private void reply(NbdReply reply) {
        if (ctx.channel().isActive()) {
            ctx.write(reply, ctx.voidPromise());
        } else {
            ReferenceCountUtil.release(reply);
        }
    }

    private void updateAutoRead() {
        boolean busy = inFlight >= MAX_IN_FLIGHT || inFlightBytes >= MAX_IN_FLIGHT_BYTES || !ctx.channel().isWritable();
        boolean read = !busy && !disconnecting;
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
    }

    private void closeWhenIdle() {
        if (inFlight > 0) {
            return;
        }
        if (disconnecting && ctx.channel().isActive()) {
            ctx.flush();
            ctx.close();
        }
        if (!ctx.channel().isActive()) {
            closeDevice();
        }
    }

    private void closeDevice() {
        if (!deviceClosed) {
            deviceClosed = true;
            // Release the image first: once the gauge drops, the image is free to remove.
            device.close();
            metrics.connectionClosed();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        updateAutoRead();
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closeWhenIdle();
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException) {
            log.info("{}: closing connection from {}: {}", session.exportName(), ctx.channel().remoteAddress(), cause.getMessage());
        } else if (cause instanceof IOException) {
            log.debug("{}: connection from {} failed: {}", session.exportName(), ctx.channel().remoteAddress(), cause.toString());
        } else {
            log.warn("{}: closing connection from {}", session.exportName(), ctx.channel().remoteAddress(), cause);
        }
        // Replies already written for earlier requests still leave.
        ctx.flush();
        ctx.close();
    }
}
