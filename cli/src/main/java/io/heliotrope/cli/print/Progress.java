package io.heliotrope.cli.print;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * The progress of long CLI work (an import, an export): bytes done of the total, the
 * rate over the last few seconds and the time left, redrawn on one line of stderr a few
 * times a second and erased at the end. Drawn only when asked to, which by default
 * means when stderr is a terminal ({@link #stderrIsTerminal}): scripts see nothing.
 * Counting is thread-safe; a progress that is not drawn only counts.
 */
public final class Progress implements AutoCloseable {
    private static final long TICK_MILLIS = 250;
    /** The rate is measured over this many ticks (3 s), so it follows changes and does not jump with each tick. */
    private static final int WINDOW = 12;
    private static final int LABEL_WIDTH = 32;
    private static final String ERASE_LINE = "\r\033[K";

    private final String label;
    private final long total;
    private final AtomicLong done = new AtomicLong();
    private final LongSupplier nanoTime;
    private final PrintStream out;
    private ScheduledExecutorService ticker;
    private final long[] sampleNanos = new long[WINDOW];
    private final long[] sampleBytes = new long[WINDOW];
    private int samples;

    /** Draws on {@code out} when {@link #draw} is called (by the ticker of {@link #start}); counts only when {@code out} is null. */
    Progress(String label, long total, LongSupplier nanoTime, PrintStream out) {
        this.label = requireNonNull(label, "label is null");
        this.total = total;
        this.nanoTime = requireNonNull(nanoTime, "nanoTime is null");
        this.out = out;
    }

    /** Progress of {@code total} bytes of work named {@code label}, redrawn on stderr a few times a second if {@code draw}. */
    public static Progress start(String label, long total, boolean draw) {
        Progress progress = new Progress(label, total, System::nanoTime, draw ? System.err : null);
        if (draw) {
            progress.ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "progress");
                thread.setDaemon(true);
                return thread;
            });
            progress.draw();
            progress.ticker.scheduleAtFixedRate(progress::draw, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        }
        return progress;
    }

    /** Whether progress is drawn by default: stderr is a terminal (on Linux, where fd 2 leads), else the JVM has a console. */
    public static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (Exception e) {
            return System.console() != null;
        }
    }

    public void add(long bytes) {
        done.addAndGet(bytes);
    }

    /** For work that reports how far it is rather than what it did since. */
    public void set(long bytes) {
        done.set(bytes);
    }

    long done() {
        return done.get();
    }

    public long total() {
        return total;
    }

    /** Redraws the line: what is done, the rate over the last {@value #WINDOW} draws, the time left. */
    synchronized void draw() {
        long now = nanoTime.getAsLong();
        long bytes = done.get();
        int oldest = samples < WINDOW ? 0 : samples % WINDOW;
        double rate = samples == 0 ? Double.NaN
                : (bytes - sampleBytes[oldest]) / ((now - sampleNanos[oldest]) / 1e9);
        sampleNanos[samples % WINDOW] = now;
        sampleBytes[samples % WINDOW] = bytes;
        samples++;
        out.print(ERASE_LINE + line(label, bytes, total, rate));
        out.flush();
    }

    /**
     * One progress line: {@code "vm1: 412.0 MiB of 1.0 GiB (40%), 215.4 MiB/s, 3 s left"}.
     * {@code bytesPerSecond} is NaN before there is a rate to show.
     */
    static String line(String label, long done, long total, double bytesPerSecond) {
        StringBuilder line = new StringBuilder();
        line.append(label.length() > LABEL_WIDTH ? "..." + label.substring(label.length() - LABEL_WIDTH + 3) : label).append(": ");
        line.append(Sizes.format(done)).append(" of ").append(Sizes.format(total));
        line.append(" (").append(total > 0 ? Math.min(100, done * 100 / total) : 100).append("%)");
        if (Double.isNaN(bytesPerSecond)) {
            return line.toString();
        }
        line.append(", ").append(Sizes.format((long) bytesPerSecond)).append("/s");
        if (bytesPerSecond >= 1 && done < total) {
            line.append(", ").append(timeLeft((long) Math.ceil((total - done) / bytesPerSecond))).append(" left");
        }
        return line.toString();
    }

    /** Whole seconds under a minute; longer spans as {@link Ages} writes them. */
    static String timeLeft(long seconds) {
        return seconds < 60 ? seconds + " s" : Ages.format(seconds * 1000);
    }

    /** Stops drawing and erases the line, so what the command prints next starts clean. */
    @Override
    public void close() {
        if (ticker != null) {
            ticker.shutdownNow();
            try {
                ticker.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (out != null) {
            synchronized (this) {
                out.print(ERASE_LINE);
                out.flush();
            }
        }
    }
}
