package io.heliotrope.storage.propagation;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler whose time stands still until a test moves it: tasks run on the test's
 * thread, in the order of their times, when {@link #advance} reaches them. Its
 * {@link #clock()} shows the same time.
 */
public final class TestingScheduler extends AbstractExecutorService implements ScheduledExecutorService {
    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private final Clock clock = new SchedulerClock();
    private long nanos;
    private long created;
    private long ran;
    private boolean shutdown;

    public TestingScheduler(Instant start) {
        this.nanos = TimeUnit.MILLISECONDS.toNanos(start.toEpochMilli());
    }

    public Clock clock() {
        return clock;
    }

    /** Runs the tasks due until {@code duration} from now, each at its time, then stands at that time. */
    public void advance(Duration duration) {
        long end = nanos + duration.toNanos();
        for (Task task = next(end); task != null; task = next(end)) {
            task.action.run();
            again(task);
        }
        synchronized (this) {
            nanos = end;
        }
    }

    /** Runs the tasks due now. */
    public void runDue() {
        advance(Duration.ZERO);
    }

    /** How many tasks have run. */
    public synchronized long ran() {
        return ran;
    }

    private synchronized Task next(long end) {
        Task task = tasks.peek();
        if (task == null || task.at > end) {
            return null;
        }
        tasks.remove();
        nanos = Math.max(nanos, task.at);
        task.done = true;
        ran++;
        return task;
    }

    /** A task run every {@code period} after its last run, unless it was cancelled: queued again. */
    private synchronized void again(Task task) {
        if (task.period > 0 && !task.cancelled) {
            task.at = nanos + task.period;
            task.order = created++;
            task.done = false;
            tasks.add(task);
        }
    }

    @Override
    public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Task task = new Task(nanos + unit.toNanos(Math.max(0, delay)), created++, command, 0);
        tasks.add(task);
        return task;
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public synchronized ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        if (delay <= 0) {
            throw new IllegalArgumentException("delay must be positive, not " + delay);
        }
        Task task = new Task(nanos + unit.toNanos(Math.max(0, initialDelay)), created++, command, unit.toNanos(delay));
        tasks.add(task);
        return task;
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = tasks.stream().map(task -> task.action).toList();
        tasks.clear();
        return left;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return true;
    }

    /** A task to run at {@code at}, or from then on every {@code period} nanoseconds after its last run when that is above 0. */
    private final class Task implements ScheduledFuture<Void> {
        private long at;
        private long order;
        private final Runnable action;
        private final long period;
        private boolean done;
        private boolean cancelled;

        Task(long at, long order, Runnable action, long period) {
            this.at = at;
            this.order = order;
            this.action = action;
            this.period = period;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            synchronized (TestingScheduler.this) {
                return unit.convert(at - nanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public int compareTo(Delayed other) {
            Task task = (Task) other;
            return at != task.at ? Long.compare(at, task.at) : Long.compare(order, task.order);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            synchronized (TestingScheduler.this) {
                // A periodic task may be running now, out of the queue: it is not queued again.
                boolean stopped = tasks.remove(this) || period > 0 && !cancelled;
                cancelled |= stopped;
                done |= stopped;
                return stopped;
            }
        }

        @Override
        public boolean isCancelled() {
            synchronized (TestingScheduler.this) {
                return cancelled;
            }
        }

        @Override
        public boolean isDone() {
            synchronized (TestingScheduler.this) {
                return done;
            }
        }

        @Override
        public Void get() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Void get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }
    }

    private final class SchedulerClock extends Clock {
        @Override
        public long millis() {
            synchronized (TestingScheduler.this) {
                return TimeUnit.NANOSECONDS.toMillis(nanos);
            }
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("a testing clock has no zones");
        }
    }
}
