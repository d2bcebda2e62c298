package io.heliotrope.benchmarks.sun;

import io.heliotrope.benchmarks.sun.ZkWan.Port;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@link FollowTheSun}'s command line, which {@code follow.sh} writes (durations in
 * milliseconds). {@code --controller} and {@code --app} are given for the scheduler's
 * placement only: without them nothing is reported and nothing decides.
 */
record SunOptions(Path out, Path work, Path nodeScript, List<String> sites, List<Integer> initial, Duration day, int days, String rtt, String bandwidth,
        Map<Port, Integer> ports, Map<String, String> nbd, String imagePrefix, double peak, int sessions, Optional<String> controller, String app,
        Duration reportEvery, Duration decideEvery) {
    private static final Set<String> NAMES = Set.of("--out", "--work", "--node-script", "--sites", "--initial", "--day-ms", "--days", "--rtt",
            "--bandwidth", "--ports", "--nbd", "--image-prefix", "--peak", "--sessions", "--controller", "--app", "--report-ms", "--decide-ms");

    static SunOptions parse(String[] args) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!NAMES.contains(args[i]) || i + 1 == args.length) {
                throw new IllegalArgumentException("unknown option or missing value: " + args[i]);
            }
            values.put(args[i], args[i + 1]);
        }
        List<String> sites = List.of(required(values, "--sites").split(","));
        List<Integer> initial = Arrays.stream(required(values, "--initial").split(",")).map(site -> {
            int index = sites.indexOf(site);
            if (index < 0) {
                throw new IllegalArgumentException("--initial names " + site + ", not one of " + sites);
            }
            return index;
        }).toList();
        Map<String, String> nbd = new HashMap<>();
        for (String each : required(values, "--nbd").split(",")) {
            String[] pair = each.split("=", 2);
            nbd.put(pair[0], pair[1]);
        }
        return new SunOptions(Path.of(required(values, "--out")), Path.of(required(values, "--work")), Path.of(required(values, "--node-script")),
                sites, initial, Duration.ofMillis(Long.parseLong(required(values, "--day-ms"))), Integer.parseInt(values.getOrDefault("--days", "2")),
                values.getOrDefault("--rtt", "75ms"), values.getOrDefault("--bandwidth", "1gbit"), FollowTheSun.ports(required(values, "--ports")), nbd,
                values.getOrDefault("--image-prefix", ""), Double.parseDouble(values.getOrDefault("--peak", "50")),
                Integer.parseInt(values.getOrDefault("--sessions", "6")), Optional.ofNullable(values.get("--controller")), values.getOrDefault("--app", "zk"),
                Duration.ofMillis(Long.parseLong(values.getOrDefault("--report-ms", "2000"))),
                Duration.ofMillis(Long.parseLong(values.getOrDefault("--decide-ms", "10000"))));
    }

    private static String required(Map<String, String> values, String name) {
        String value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException(name + " is required");
        }
        return value;
    }
}
