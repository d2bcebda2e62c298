package io.heliotrope.cli.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TestPortHolders {
    private static final String TCP = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:2A41 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5001 1 0000000000000000 100 0 0 10 0
               1: 0100007F:2A41 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 5002 1 0000000000000000 20 4 30 10 -1
               2: 00000000:1CF2 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5003 1 0000000000000000 100 0 0 10 0
            """;
    private static final String TCP6 = """
              sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 00000000000000000000000000000000:2A42 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 6001 1 0000000000000000 100 0 0 10 0
            """;

    @Test
    void findsListeningSocketsByPortOnly() {
        List<String> table = TCP.lines().toList();

        assertThat(PortHolders.listeningInodes(table, 10817)).as("0x2A41: listening, not the connection on it").containsExactly(5001L);
        assertThat(PortHolders.listeningInodes(table, 7410)).as("0x1CF2 on every address").containsExactly(5003L);
        assertThat(PortHolders.listeningInodes(table, 10818)).isEmpty();
        assertThat(PortHolders.listeningInodes(TCP6.lines().toList(), 10818)).containsExactly(6001L);
        assertThat(PortHolders.listeningInodes(List.of(), 10817)).isEmpty();
    }

    @Test
    void findsTheProcessWhoseDescriptorIsTheSocket(@TempDir Path proc) throws IOException {
        Files.createDirectories(proc.resolve("net"));
        Files.writeString(proc.resolve("net/tcp"), TCP);
        Files.writeString(proc.resolve("net/tcp6"), TCP6);
        process(proc, 17, "socket:[5002]", "nc", "127.0.0.1", "10817");
        process(proc, 4242, "socket:[6001]", "java", "-cp", "lib/*", "io.heliotrope.cli.Helio", "up");
        Files.createDirectories(proc.resolve("self/fd"));

        assertThat(new PortHolders(proc).find(10818)).hasValue(new PortHolders.Holder(4242, List.of("java", "-cp", "lib/*", "io.heliotrope.cli.Helio", "up")));
        assertThat(new PortHolders(proc).find(10817)).as("only a connection's socket has a holder").isEmpty();
        assertThat(new PortHolders(proc).find(9999)).isEmpty();
    }

    @Test
    void findsThisProcessListeningInTheRealProc() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThat(new PortHolders(Path.of("/proc")).find(socket.getLocalPort()))
                    .hasValueSatisfying(holder -> assertThat(holder.pid()).isEqualTo(ProcessHandle.current().pid()));
        }
    }

    @Test
    void knowsNoHolderWithoutProc(@TempDir Path empty) {
        assertThat(new PortHolders(empty).find(10809)).isEmpty();
    }

    private static void process(Path proc, long pid, String descriptor, String... commandLine) throws IOException {
        Path dir = proc.resolve(Long.toString(pid));
        Files.createDirectories(dir.resolve("fd"));
        Files.createSymbolicLink(dir.resolve("fd").resolve("0"), Path.of("/dev/null"));
        Files.createSymbolicLink(dir.resolve("fd").resolve("3"), Path.of(descriptor));
        Files.write(dir.resolve("cmdline"), (String.join("\0", commandLine) + "\0").getBytes(StandardCharsets.UTF_8));
    }
}
