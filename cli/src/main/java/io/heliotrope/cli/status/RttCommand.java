package io.heliotrope.cli.status;

import io.heliotrope.cli.client.CatalogClient;
import io.heliotrope.cli.client.ClientConfig;
import io.heliotrope.cli.client.Target;
import io.heliotrope.cli.print.Json;
import io.heliotrope.cli.print.SquareTable;
import io.heliotrope.proto.controller.v1.PeerRtt;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.RttRow;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/** {@code helio rtt}: the round-trip times sites measured between them, as the controller keeps them. */
@Command(name = "rtt", mixinStandardHelpOptions = true,
        description = {"Print the RTT matrix in milliseconds: rows measured from, columns measured to; '-' where unknown.",
                "Each site reports the median of several probes to each peer."})
public final class RttCommand implements Callable<Integer> {
    @Option(names = "--controller", paramLabel = "HOST:PORT",
            description = "The controller that keeps the matrix (default: $" + Target.ENV + ", else the one `helio up` wrote to "
                    + "~/.config/heliotrope/client.yaml, else " + Target.DEFAULT_CONTROLLER + ").")
    String controller;

    @Option(names = "--json", description = "Print the controller's RttMatrix as JSON instead (see README, Scripts).")
    boolean json;

    @Override
    public Integer call() {
        try (CatalogClient catalog = new CatalogClient(Target.controller(controller, System.getenv(), ClientConfig.defaultPath()))) {
            Json.print(json, catalog.rttMatrix(), System.out, RttCommand::print);
        }
        return 0;
    }

    static void print(RttMatrix matrix, PrintStream out) {
        TreeSet<String> sites = new TreeSet<>();
        Map<String, Map<String, Long>> micros = new HashMap<>();
        for (RttRow row : matrix.getRowsList()) {
            sites.add(row.getSite());
            for (PeerRtt peer : row.getPeersList()) {
                sites.add(peer.getPeer());
                micros.computeIfAbsent(row.getSite(), from -> new HashMap<>()).put(peer.getPeer(), peer.getRttMicros());
            }
        }
        if (sites.isEmpty()) {
            out.println("no round trips reported yet");
            return;
        }
        SquareTable.print(out, List.copyOf(sites), (from, to) -> {
            Long rtt = micros.getOrDefault(from, Map.of()).get(to);
            return rtt == null ? "-" : String.format(Locale.ROOT, "%.1f", rtt / 1000.0);
        });
    }
}
