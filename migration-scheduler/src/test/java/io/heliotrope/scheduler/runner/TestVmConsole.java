package io.heliotrope.scheduler.runner;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.scheduler.qmp.TestingQmpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
            TestingConsoleSink sink = new TestingConsoleSink();
            VmConsole console = new VmConsole(qemu.vm, -7, poller, sink);
            console.start();
            sink.await(text -> text.equals("login: "), WAIT);
            assertThat(sink.firstOffset()).isEqualTo(5);

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
            sink.await(text -> text.equals("login: root\n# "), WAIT);
            Files.writeString(log, "bye\n", StandardOpenOption.APPEND);
            qemu.vm.kill(WAIT).get();
            assertThat(sink.awaitEnd(WAIT)).isEqualTo("killed");
            assertThat(sink.text()).isEqualTo("login: root\n# bye\n");
        }
    }

    @Test
    void sendsNoMoreThanTheSinkIsReadyFor() throws Exception {
        try (TestingQemu qemu = new TestingQemu(dir, List.of(), false, TestingQmpServer::empty)) {
            Files.write(qemu.vm.files().consoleLog(), new byte[3 * VmConsole.CHUNK]);
            TestingConsoleSink sink = new TestingConsoleSink();
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
            assertThat(sink.ended()).isNull();
        }
    }
}
