package io.heliotrope.it;

import io.heliotrope.wan.LinkConfig;
import io.heliotrope.wan.WanEmulator;
import io.heliotrope.wan.WanLink;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sites on one controller with an emulated WAN between them (DESIGN.md section 10): each
 * ordered pair of sites has its own link, and so has each site's path to the controller
 * (the first site sits with the controller, the others reach it across the WAN), and so
 * has each site's path to each of another site's migration ports. A site
 * restarts on its gRPC port, so that the links into it still lead to it, and on its NBD
 * port, so that the guests it runs reconnect to their disks.
 */
final class WanSites implements AutoCloseable {
    /** Incoming migrations each site takes at once: three VMs moved together, and a rollback's destination may linger. */
    private static final int MIGRATION_PORTS = 4;
    private final WanEmulator emulator = new WanEmulator();
    private final Map<String, TestingSite> sites = new LinkedHashMap<>();
    /** The links from a site to another's migration ports, by "from->to". */
    private final Map<String, List<WanLink>> migrationLinks = new LinkedHashMap<>();

    /**
     * @param controller host:port of the controller
     * @param options more {@code helio serve} options for every site
     */
    WanSites(String controller, LinkConfig wan, List<String> names, String... options) {
        try {
            int[] ports = Ports.free(names.size());
            int[] nbdPorts = Ports.free(names.size());
            int[] migrationPorts = new int[names.size()];
            for (int i = 0; i < names.size(); i++) {
                migrationPorts[i] = Ports.freeRun(MIGRATION_PORTS);
            }
            InetSocketAddress controllerAddress = address(controller);
            List<List<String>> arguments = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                String name = names.get(i);
                LinkConfig toController = i == 0 ? LinkConfig.direct() : wan;
                List<String> args = new ArrayList<>(List.of("--site", name, "--grpc-port", Integer.toString(ports[i]),
                        "--nbd-port", Integer.toString(nbdPorts[i]),
                        "--controller", target(link(name, "controller", controllerAddress, toController)),
                        "--migration-port", Integer.toString(migrationPorts[i]), "--migration-ports", Integer.toString(MIGRATION_PORTS)));
                for (int j = 0; j < names.size(); j++) {
                    if (j != i) {
                        InetSocketAddress peer = new InetSocketAddress("127.0.0.1", ports[j]);
                        args.addAll(List.of("--peer", names.get(j) + "=" + target(link(name, names.get(j), peer, wan))));
                        List<String> links = new ArrayList<>();
                        for (int port = migrationPorts[j]; port < migrationPorts[j] + MIGRATION_PORTS; port++) {
                            WanLink link = link(name, names.get(j) + " migration " + port, new InetSocketAddress("127.0.0.1", port), wan);
                            migrationLinks.computeIfAbsent(name + "->" + names.get(j), key -> new ArrayList<>()).add(link);
                            links.add(target(link));
                        }
                        args.addAll(List.of("--peer-migration", names.get(j) + "=" + String.join(",", links)));
                    }
                }
                args.addAll(List.of(options));
                arguments.add(args);
            }
            for (int i = 0; i < names.size(); i++) {
                sites.put(names.get(i), TestingSite.start(arguments.get(i).toArray(String[]::new)));
            }
        } catch (RuntimeException | AssertionError e) {
            close();
            throw e;
        }
    }

    TestingSite site(String name) {
        return sites.get(name);
    }

    /** The link that carries {@code from}'s traffic to {@code to} ("controller" for the controller). */
    WanLink link(String from, String to) {
        return emulator.link(from + "->" + to);
    }

    /**
     * Cuts {@code site} off from the other sites ({@code true}) or heals the cut: every link
     * between them, both ways and migration links included, black-holed; its path to the
     * controller stays up.
     */
    void cutOff(String site, boolean cut) {
        for (String other : sites.keySet()) {
            if (!other.equals(site)) {
                link(site, other).setBlackhole(cut);
                link(other, site).setBlackhole(cut);
                migrationLinks(site, other).forEach(link -> link.setBlackhole(cut));
                migrationLinks(other, site).forEach(link -> link.setBlackhole(cut));
            }
        }
    }

    /** Bytes delivered so far, both ways, on the links between {@code site} and the other sites (not the controller, not migrations). */
    long bytesBetween(String site) {
        long bytes = 0;
        for (String other : sites.keySet()) {
            if (!other.equals(site)) {
                for (WanLink link : List.of(link(site, other), link(other, site))) {
                    bytes += link.forwardBytes() + link.backwardBytes();
                }
            }
        }
        return bytes;
    }

    /** The links a migration from {@code from} to {@code to} sends its RAM through. */
    List<WanLink> migrationLinks(String from, String to) {
        return migrationLinks.get(from + "->" + to);
    }

    private WanLink link(String from, String to, InetSocketAddress target, LinkConfig config) {
        return emulator.addLink(from + "->" + to, new InetSocketAddress("127.0.0.1", 0), target, config);
    }

    private static String target(WanLink link) {
        return "127.0.0.1:" + link.listenAddress().getPort();
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** The log of every site, for a failed test's report: what it printed, then its log file. */
    String logs() {
        StringBuilder logs = new StringBuilder();
        sites.forEach((name, site) -> logs.append("==== site ").append(name).append(" ====\n").append(site.log())
                .append("==== site ").append(name).append(", its log file ====\n").append(site.logFile()));
        return logs.toString();
    }

    @Override
    public void close() {
        try (Cleanup cleanup = new Cleanup()) {
            cleanup.add(emulator::close);
            sites.values().forEach(site -> cleanup.add(site::close));
        }
    }

    /** The link the tests use: the paper's 75 ms round trip, US east coast to Asia, at 1 Gbit/s. */
    static final LinkConfig WAN_75MS = LinkConfig.parse("75ms", "1gbit");
}
