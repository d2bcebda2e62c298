package io.heliotrope.wan;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCounted;

import java.util.ArrayDeque;

import static java.util.Objects.requireNonNull;

/**
 * One direction of one proxied connection. Bytes read from {@code source} wait until the window
 * has room, cross the link (see {@link LinkConfig}), are written to {@code destination} in the
 * order they were read, and stay in flight until their acknowledgement would be back. The source
 * is read only while nothing waits for the window and the destination is writable, so the line
 * holds at most one read beyond the window. Confined to the connection's event loop.
 */
final class DelayLine {
    private final WanLink link;
    private final LinkDirection direction;
    private final Channel source;
    private final Channel destination;
    private final Runnable onFinished;
    private final ArrayDeque<ByteBuf> unsent = new ArrayDeque<>();
    private final Timeline<ByteBuf> deliveries;
    private final Timeline<Integer> acknowledgements;
    private long inFlightBytes;
    private boolean sourceEnded;
    private boolean finished;
    private boolean reported;

    /** {@code onFinished} runs once, when the line has delivered all it will or was aborted. */
    DelayLine(WanLink link, LinkDirection direction, Channel source, Channel destination, Runnable onFinished) {
        this.link = requireNonNull(link, "link is null");
        this.direction = requireNonNull(direction, "direction is null");
        this.source = requireNonNull(source, "source is null");
        this.destination = requireNonNull(destination, "destination is null");
        this.onFinished = requireNonNull(onFinished, "onFinished is null");
        this.deliveries = new Timeline<>(source.eventLoop(), this::deliverDue);
        this.acknowledgements = new Timeline<>(source.eventLoop(), this::acknowledgeDue);
    }

    void accept(ByteBuf data) {
        if (finished) {
            data.release();
            return;
        }
        unsent.add(data);
        send();
        updateReading();
    }

    /** The source will send nothing more: deliver what is on its way, then shut the destination's output. */
    void sourceEnded() {
        sourceEnded = true;
        updateReading();
        finishIfDrained();
    }

    /** The destination is gone: drop everything and stop reading. */
    void abort() {
        finished = true;
        unsent.forEach(ReferenceCounted::release);
        unsent.clear();
        deliveries.clear(ReferenceCounted::release);
        acknowledgements.clear(bytes -> {});
        updateReading();
        reportFinished();
    }

    /** Catches up after the link's config or partition changed, or the destination's writability. */
    void resume() {
        send();
        deliverDue();
        updateReading();
    }

    private void send() {
        if (link.holds(direction)) {
            return;
        }
        LinkConfig config = link.config();
        long now = System.nanoTime();
        while (!unsent.isEmpty() && inFlightBytes < config.windowBytes()) {
            ByteBuf head = unsent.peek();
            long room = config.windowBytes() - inFlightBytes;
            ByteBuf chunk = head.readableBytes() <= room ? unsent.poll() : head.readRetainedSlice((int) room);
            int bytes = chunk.readableBytes();
            inFlightBytes += bytes;
            long sentAt = direction.transmit(now, config.transmissionNanos(bytes));
            deliveries.add(sentAt + config.oneWayDelay().toNanos(), chunk);
        }
    }

    private void deliverDue() {
        if (link.holds(direction)) {
            return;
        }
        long now = System.nanoTime();
        int delivered = 0;
        for (ByteBuf chunk; (chunk = deliveries.pollDue(now)) != null; ) {
            // Counted before the write, so whoever receives the bytes sees them counted.
            direction.delivered(chunk.readableBytes());
            delivered += chunk.readableBytes();
            destination.write(chunk, destination.voidPromise());
        }
        if (delivered > 0) {
            destination.flush();
            acknowledgements.add(now + link.config().oneWayDelay().toNanos(), delivered);
        }
        deliveries.arm();
        finishIfDrained();
    }

    private void acknowledgeDue() {
        long now = System.nanoTime();
        for (Integer bytes; (bytes = acknowledgements.pollDue(now)) != null; ) {
            inFlightBytes -= bytes;
        }
        acknowledgements.arm();
        send();
        updateReading();
    }

    private void updateReading() {
        boolean read = !sourceEnded && !finished && unsent.isEmpty() && !link.holds(direction)
                && destination.isWritable();
        if (source.config().isAutoRead() != read) {
            source.config().setAutoRead(read);
        }
    }

    private void finishIfDrained() {
        if (finished || !sourceEnded || !unsent.isEmpty() || !deliveries.isEmpty()) {
            return;
        }
        finished = true;
        // Shutting the output down fails writes still queued in the channel: wait until they are out.
        destination.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> {
            if (written.isSuccess() && destination instanceof SocketChannel socket) {
                socket.shutdownOutput();
            }
            reportFinished();
        });
    }

    private void reportFinished() {
        if (!reported) {
            reported = true;
            onFinished.run();
        }
    }
}
