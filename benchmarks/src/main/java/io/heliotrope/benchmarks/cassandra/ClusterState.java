package io.heliotrope.benchmarks.cassandra;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.metadata.TokenMap;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;

/**
 * What move.sh checks of a cluster: its token to host-id map as the driver sees it (the
 * ring in {@code system.local} and {@code system.peers_v2}), and what every node streamed,
 * from its {@code system_views.streaming} table (the sessions {@code nodetool netstats}
 * shows while they run; a node keeps them until it restarts).
 */
final class ClusterState {
    private ClusterState() {}

    /** Overwrites TOKENS with "token,host_id" lines in token order; appends "unix_s,host_id,address,dc,bytes_received,bytes_sent" to STREAMS. */
    static void print(CqlSession session, Path tokens, Path streams) throws IOException {
        TokenMap ring = session.getMetadata().getTokenMap().orElseThrow(() -> new IllegalStateException("no token map"));
        Map<String, String> owners = new TreeMap<>();
        for (Node node : session.getMetadata().getNodes().values()) {
            ring.getTokens(node).forEach(t -> owners.put(ring.format(t), String.valueOf(node.getHostId())));
        }
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(tokens))) {
            owners.entrySet().stream()
                    .sorted(Map.Entry.comparingByKey((a, b) -> Long.compare(Long.parseLong(a), Long.parseLong(b))))
                    .forEach(e -> out.println(e.getKey() + "," + e.getValue()));
        }
        long now = System.currentTimeMillis() / 1000;
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(streams, StandardOpenOption.CREATE, StandardOpenOption.APPEND))) {
            for (Node node : session.getMetadata().getNodes().values()) {
                long received = 0;
                long sent = 0;
                SimpleStatement query = SimpleStatement.newInstance("SELECT bytes_received, bytes_sent FROM system_views.streaming")
                        .setNode(node);
                for (Row row : session.execute(query)) {
                    received += row.getLong("bytes_received");
                    sent += row.getLong("bytes_sent");
                }
                out.printf("%d,%s,%s,%s,%d,%d%n", now, node.getHostId(), node.getEndPoint().resolve(), node.getDatacenter(), received, sent);
            }
        }
    }
}
