package io.heliotrope.scheduler.runner;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.scheduler.qmp.TestingQmpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

import static org.assertj.core.api.Assertions.assertThat;

class TestVmConsole {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private final ScheduledExecutorService poller = BoundedExecutors.scheduled("test-console", 1, 16);

    @AfterEach
    void stopPoller() throws InterruptedException {
        BoundedExecutors.shutdown(poller, WAIT);
    }

    @Test
    void aNegativeOffsetStartsAtTheNextLine() throws Exception {
        Path log = dir.resolve("console.log");
        Files.writeString(log, "line1\nline2\npartial");
        assertThat(VmConsole.start(log, -8)).isEqualTo(12);
        assertThat(VmConsole.start(log, -7)).isEqualTo(12);
        assertThat(VmConsole.start(log, -100)).isZero();
        assertThat(VmConsole.start(log, 3)).isEqualTo(3);
        Files.writeString(log, "no line break at all");
        assertThat(VmConsole.start(log, -5)).isEqualTo(15);
        assertThat(VmConsole.start(dir.resolve("missing.log"), -5)).isZero();
    }

    @Test
    void followsTheLogAsItGrowsTypesIntoTheSocketAndEndsWithTheExitReason() throws Exception {
        try (TestingQemu qemu = new TestingQemu(dir, List.of(), false, TestingQmpServer::empty);
                ServerSocketChannel socket = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            socket.bind(UnixDomainSocketAddress.of(qemu.vm.files().consoleSocket()));
            Path log = qemu.vm.files().consoleLog();
            Files.writeString(log, "boot\nlogin: ");
            TestingSink sink = new TestingSink();
            VmConsole console = new VmConsole(qemu.vm, -7, poller, sink);
            console.start();
            sink.await("login: ");
            assertThat(sink.firstOffset).isEqualTo(5);

            console.type("root\n".getBytes(StandardCharsets.UTF_8));
            try (SocketChannel typed = socket.accept()) {
                ByteBuffer input = ByteBuffer.allocate(5);
                while (input.hasRemaining() && typed.read(input) >= 0) {
                    // until the five bytes are in
                }
                assertThat(new String(input.array(), StandardCharsets.UTF_8)).isEqualTo("root\n");
                // What QEMU sends on the socket is read and dropped: the guest's output is in console.log.
                typed.write(ByteBuffer.wrap("echo".getBytes(StandardCharsets.UTF_8)));
            }

            Files.writeString(log, "root\n# ", StandardOpenOption.APPEND);
            sink.await("login: root\n# ");
            Files.writeString(log, "bye\n", StandardOpenOption.APPEND);
            qemu.vm.kill(WAIT).get();
            assertThat(sink.awaitEnd()).isEqualTo("killed");
            assertThat(sink.text()).isEqualTo("login: root\n# bye\n");
        }
    }

    @Test
    void sendsNoMoreThanTheSinkIsReadyFor() throws Exception {
        try (TestingQemu qemu = new TestingQemu(dir, List.of(), false, TestingQmpServer::empty)) {
            Files.write(qemu.vm.files().consoleLog(), new byte[3 * VmConsole.CHUNK]);
            TestingSink sink = new TestingSink();
            sink.readyFor(1);
            VmConsole console = new VmConsole(qemu.vm, 0, poller, sink);
            console.start();
            assertThat(sink.bytes()).hasSize(VmConsole.CHUNK);

            sink.readyFor(Integer.MAX_VALUE);
            console.pump();
            assertThat(sink.bytes()).hasSize(3 * VmConsole.CHUNK);
            console.close();
            qemu.vm.kill(WAIT).get();
            console.pump();
            assertThat(sink.ended).isNull();
        }
    }

    /** Records what a console sends; ready for as many messages as the test says. */
    private static final class TestingSink implements VmConsole.Sink {
        private final ByteArrayOutputStream data = new ByteArrayOutputStream();
        private long firstOffset = -1;
        private int ready = Integer.MAX_VALUE;
        private String ended;

        synchronized void readyFor(int messages) {
            ready = messages;
        }

        @Override
        public synchronized boolean ready() {
            return ready > 0;
        }

        @Override
        public synchronized void data(long offset, byte[] bytes) {
            assertThat(offset).isEqualTo(firstOffset < 0 ? offset : firstOffset + data.size());
            firstOffset = firstOffset < 0 ? offset : firstOffset;
            data.writeBytes(bytes);
            ready--;
            notifyAll();
        }

        @Override
        public synchronized void ended(String reason) {
            ended = reason;
            notifyAll();
        }

        synchronized byte[] bytes() {
            return data.toByteArray();
        }

        synchronized String text() {
            return data.toString(StandardCharsets.UTF_8);
        }

        synchronized void await(String text) throws InterruptedException {
            long end = System.nanoTime() + WAIT.toNanos();
            while (!text().equals(text)) {
                long left = end - System.nanoTime();
                assertThat(left).as("console output %s, waiting for %s", text(), text).isPositive();
                wait(Math.max(1, left / 1_000_000));
            }
        }

        synchronized String awaitEnd() throws InterruptedException {
            long end = System.nanoTime() + WAIT.toNanos();
            while (ended == null) {
                long left = end - System.nanoTime();
                assertThat(left).as("no end; output %s", text()).isPositive();
                wait(Math.max(1, left / 1_000_000));
            }
            return ended;
        }
    }
}
