package io.heliotrope.wan;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * Items due at nanosecond deadlines, taken in the order they were added, with at most one task
 * scheduled on the event loop (at the head's deadline) however many items wait. Items added
 * out of deadline order wait for the ones before them, which keeps a connection's bytes in order.
 * Confined to its event loop.
 */
final class Timeline<T> {
    private record Entry<T>(long dueNanos, T item) {}

    private final EventLoop eventLoop;
    private final Runnable onDue;
    private final ArrayDeque<Entry<T>> entries = new ArrayDeque<>();
    private ScheduledFuture<?> wakeup;

    /** {@code onDue} runs once the head is due; it takes what it wants with {@link #pollDue} and re-arms. */
    Timeline(EventLoop eventLoop, Runnable onDue) {
        this.eventLoop = requireNonNull(eventLoop, "eventLoop is null");
        this.onDue = requireNonNull(onDue, "onDue is null");
    }

    void add(long dueNanos, T item) {
        entries.add(new Entry<>(dueNanos, requireNonNull(item, "item is null")));
        arm();
    }

    /** The head if it is due at {@code nowNanos}, else null. */
    T pollDue(long nowNanos) {
        Entry<T> head = entries.peek();
        if (head == null || head.dueNanos() - nowNanos > 0) {
            return null;
        }
        entries.poll();
        return head.item();
    }

    /** Schedules {@code onDue} for the head's deadline, unless already scheduled or empty. */
    void arm() {
        Entry<T> head = entries.peek();
        if (wakeup == null && head != null) {
            long delay = Math.max(0, head.dueNanos() - System.nanoTime());
            wakeup = eventLoop.schedule(this::fire, delay, TimeUnit.NANOSECONDS);
        }
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    /** Drops every item, handing each to {@code discard}, and cancels the wakeup. */
    void clear(Consumer<? super T> discard) {
        if (wakeup != null) {
            wakeup.cancel(false);
            wakeup = null;
        }
        for (Entry<T> entry; (entry = entries.poll()) != null; ) {
            discard.accept(entry.item());
        }
    }

    private void fire() {
        wakeup = null;
        onDue.run();
    }
}
