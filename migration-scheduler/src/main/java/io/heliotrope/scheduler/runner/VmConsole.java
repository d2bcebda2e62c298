package io.heliotrope.scheduler.runner;

import io.heliotrope.error.HeliotropeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * One reader of a VM's serial console at this site. Output is its console.log (QEMU logs the
 * serial port there whether or not anyone reads), sent from an offset and then as the file
 * grows, as fast as the {@link Sink} is ready for it: {@link #pump()} sends until the sink is
 * not ready or the file's end is reached; the sink calls it again when it is ready, and at the
 * end a poll looks at the file again every {@link #POLL}. Once QEMU exited here, what remains
 * of the log is sent and then the exit reason. Input goes to the VM's console socket.
 * Thread-safe.
 */
public final class VmConsole implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(VmConsole.class);
    static final int CHUNK = 16 * 1024;
    static final Duration POLL = Duration.ofMillis(100);

    /** Where a console's output goes; called by one thread at a time. */
    public interface Sink {
        /** Whether it takes more now; when it did not, it calls {@link #pump()} once it does. */
        boolean ready();

        /** @param offset of the first byte in console.log */
        void data(long offset, byte[] bytes);

        /** The last call: QEMU exited here, for {@code reason}. */
        void ended(String reason);
    }

    private final QemuVm vm;
    private final ScheduledExecutorService poller;
    private final Sink sink;
    // Guarded by this.
    private long position;
    private FileChannel file;
    private boolean polling;
    private boolean closed;

    VmConsole(QemuVm vm, long offset, ScheduledExecutorService poller, Sink sink) throws IOException {
        this.vm = requireNonNull(vm, "vm is null");
        this.poller = requireNonNull(poller, "poller is null");
        this.sink = requireNonNull(sink, "sink is null");
        this.position = start(vm.files().consoleLog(), offset);
    }

    /**
     * Where a console that asked for {@code offset} starts: there when it is not negative;
     * else that many bytes before the log's end, moved forward to the start of the next line
     * (kept there when the bytes up to the end hold no line break).
     */
    static long start(Path log, long offset) throws IOException {
        if (offset >= 0) {
            return offset;
        }
        try (FileChannel channel = FileChannel.open(log, StandardOpenOption.READ)) {
            long size = channel.size();
            long from = Math.max(0, size + offset);
            if (from == 0) {
                return 0;
            }
            ByteBuffer buffer = ByteBuffer.allocate(CHUNK);
            for (long at = from - 1; at < size; ) {
                int read = channel.read(buffer.clear(), at);
                for (int i = 0; i < read; i++) {
                    if (buffer.get(i) == '\n') {
                        return at + i + 1;
                    }
                }
                at += Math.max(read, 1);
            }
            return from;
        } catch (NoSuchFileException e) {
            return 0;
        }
    }

    /** Starts sending; the end comes by itself once QEMU exits. */
    void start() {
        vm.exit().thenRun(this::pump);
        pump();
    }

    /** Sends what the sink is ready for. */
    public synchronized void pump() {
        if (closed) {
            return;
        }
        try {
            while (sink.ready()) {
                // Exited first, then the size: a size read after the exit is final.
                boolean exited = vm.exit().isDone();
                byte[] bytes = read();
                if (bytes.length > 0) {
                    sink.data(position, bytes);
                    position += bytes.length;
                } else if (exited) {
                    sink.ended(vm.exit().join());
                    close();
                    return;
                } else {
                    poll();
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            log.warn("{}: the console stopped: {}", vm.name(), HeliotropeException.rootMessage(e));
            close();
        }
    }

    /** Writes {@code input} to the guest's serial port; dropped (and logged) when it cannot be. */
    public void type(byte[] input) {
        try {
            vm.type(input);
        } catch (IOException e) {
            log.info("{}: console input dropped: {}", vm.name(), e.getMessage());
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (file != null) {
            try {
                file.close();
            } catch (IOException e) {
                log.debug("{}: closing console.log failed", vm.name(), e);
            }
        }
    }

    /** Up to a chunk from the position on; none at the end, or before the log exists. */
    private byte[] read() throws IOException {
        if (file == null) {
            try {
                file = FileChannel.open(vm.files().consoleLog(), StandardOpenOption.READ);
            } catch (NoSuchFileException e) {
                return new byte[0];
            }
        }
        long available = file.size() - position;
        if (available <= 0) {
            return new byte[0];
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(CHUNK, available));
        while (buffer.hasRemaining() && file.read(buffer, position + buffer.position()) > 0) {
            // a regular file reads what it has
        }
        return buffer.position() == buffer.capacity() ? buffer.array() : Arrays.copyOf(buffer.array(), buffer.position());
    }

    private void poll() {
        if (polling) {
            return;
        }
        polling = true;
        try {
            poller.schedule(() -> {
                synchronized (this) {
                    polling = false;
                }
                pump();
            }, POLL.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // The runner is closing: so is the console's call.
            close();
        }
    }
}
