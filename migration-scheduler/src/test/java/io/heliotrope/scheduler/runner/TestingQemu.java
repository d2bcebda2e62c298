package io.heliotrope.scheduler.runner;

import com.fasterxml.jackson.databind.JsonNode;
import io.heliotrope.scheduler.qmp.QmpClient;
import io.heliotrope.scheduler.qmp.QmpCodec;
import io.heliotrope.scheduler.qmp.TestingQmpServer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * A {@link QemuVm} whose QEMU is a fake QMP server and whose process is a {@code sleep}: when
 * the process is killed, the server drops the connection, as a dying QEMU does.
 */
final class TestingQemu implements AutoCloseable {
    final TestingQmpServer server;
    final Process process;
    final QemuVm vm;
    private final TestingEventLog events = new TestingEventLog();

    TestingQemu(Path dir, List<String> disks, boolean incoming, Function<JsonNode, String> answer) throws Exception {
        VmFiles files = VmFiles.of(dir, "vm1");
        Files.createDirectories(files.dir());
        server = new TestingQmpServer(files.qmpSocket(), answer);
        process = new ProcessBuilder("sleep", "600").start();
        process.onExit().thenRun(() -> {
            try {
                server.disconnect();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        QmpClient qmp = QmpClient.connect(files.qmpSocket(), "vm1", new QmpCodec(), Duration.ofSeconds(10));
        LaunchRecord launch = new LaunchRecord(new VmDefinition("vm1", 64L << 20, 1, disks, null, null, null, null), incoming, incoming ? 0 : -1, 0, 0);
        vm = new QemuVm("a", files, launch, process.pid(), qmp);
        vm.watch(events);
        server.nextCommand();
    }

    /** The next command's {@code execute}. */
    String nextCommand() throws InterruptedException {
        return server.nextCommand().get("execute").asText();
    }

    @Override
    public void close() throws IOException {
        // Until the VM has seen its exit, it may still write in the test's directory.
        vm.kill(Duration.ofSeconds(10));
        try {
            events.await(VmEvent.EXITED, "killed", Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.close();
    }
}
