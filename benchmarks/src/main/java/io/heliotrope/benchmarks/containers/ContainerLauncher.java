package io.heliotrope.benchmarks.containers;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The command line of {@link HostContainers} (benchmarks/docker/container.sh runs it; README.md there):
 * <pre>
 * start --image IMG --name N [--bind HOST:CONTAINER|PATH]... [--env K=V]... --wait-log REGEX [--timeout 300s] [-- ARGS...]
 * stop  [--grace 15s] ID...
 * logs  [--follow] ID
 * </pre>
 * {@code start} prints the container's id once the ready line appeared and leaves it running
 * (container.sh's {@code run} adds following its output and stopping it on TERM). Exit code 0,
 * 1 for a user's mistake, 2 when the container failed.
 */
public final class ContainerLauncher {
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(300);
    private static final Duration DEFAULT_GRACE = Duration.ofSeconds(15);

    private ContainerLauncher() {}

    public static void main(String[] args) {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            System.out.println("usage: container.sh start --image IMG --name N [--bind HOST:CONTAINER|PATH]... [--env K=V]..."
                    + " --wait-log REGEX [--timeout 300s] [-- ARGS...] | stop [--grace 15s] ID... | logs [--follow] ID");
            System.out.flush();
            Runtime.getRuntime().halt(args.length == 0 ? 1 : 0);
        }
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        int code;
        try {
            code = switch (args[0]) {
                case "start" -> {
                    ContainerSpec spec = parseSpec(rest);
                    System.out.println(containers().start(spec));
                    yield 0;
                }
                case "stop" -> stop(containers(), rest);
                case "logs" -> logs(containers(), rest);
                default -> throw new IllegalArgumentException("unknown command " + args[0] + " (start, stop, logs)");
            };
        } catch (IllegalArgumentException e) {
            System.err.println("container: " + e.getMessage());
            code = 1;
        } catch (RuntimeException e) {
            System.err.println("container: " + e.getMessage());
            code = 2;
        }
        System.out.flush();
        System.err.flush();
        // Not exit: with Ryuk off, Testcontainers' own shutdown hook removes every container this
        // JVM started (by its session label), and a started server must outlive us.
        Runtime.getRuntime().halt(code);
    }

    private static HostContainers containers() {
        return HostContainers.connect(System.getenv());
    }

    private static int stop(HostContainers containers, List<String> args) {
        Duration grace = DEFAULT_GRACE;
        List<String> ids = new ArrayList<>(args);
        if (ids.size() >= 2 && ids.get(0).equals("--grace")) {
            grace = parseDuration(ids.get(1));
            ids = ids.subList(2, ids.size());
        }
        if (ids.isEmpty()) {
            throw new IllegalArgumentException("stop: no container id");
        }
        for (String id : ids) {
            containers.stop(id, grace);
        }
        return 0;
    }

    private static int logs(HostContainers containers, List<String> args) {
        boolean follow = !args.isEmpty() && args.get(0).equals("--follow");
        List<String> ids = args.subList(follow ? 1 : 0, args.size());
        if (ids.size() != 1) {
            throw new IllegalArgumentException("logs: one container id");
        }
        try {
            containers.logs(ids.get(0), follow, ContainerLauncher::print).awaitCompletion();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    private static void print(Frame frame) {
        PrintStream stream = frame.getStreamType() == StreamType.STDERR ? System.err : System.out;
        stream.write(frame.getPayload(), 0, frame.getPayload().length);
        stream.flush();
    }

    static ContainerSpec parseSpec(List<String> args) {
        Map<String, String> options = new LinkedHashMap<>();
        List<ContainerSpec.Bind> binds = new ArrayList<>();
        Map<String, String> env = new LinkedHashMap<>();
        int i = 0;
        for (; i < args.size() && !args.get(i).equals("--"); i += 2) {
            String option = args.get(i);
            if (i + 1 == args.size()) {
                throw new IllegalArgumentException("option " + option + " has no value");
            }
            String value = args.get(i + 1);
            switch (option) {
                case "--bind" -> binds.add(ContainerSpec.Bind.parse(value));
                case "--env" -> {
                    int equals = value.indexOf('=');
                    if (equals <= 0) {
                        throw new IllegalArgumentException("--env " + value + ": expected NAME=VALUE");
                    }
                    env.put(value.substring(0, equals), value.substring(equals + 1));
                }
                case "--image", "--name", "--wait-log", "--timeout" -> options.put(option, value);
                default -> throw new IllegalArgumentException("unknown option " + option);
            }
        }
        List<String> command = i < args.size() ? args.subList(i + 1, args.size()) : List.of();
        return new ContainerSpec(
                required(options, "--image"),
                required(options, "--name"),
                binds,
                env,
                Pattern.compile(required(options, "--wait-log")),
                options.containsKey("--timeout") ? parseDuration(options.get("--timeout")) : DEFAULT_TIMEOUT,
                command);
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException(name + " is required");
        }
        return value;
    }

    /** 300s, 5m, 1500ms. */
    static Duration parseDuration(String value) {
        var matcher = Pattern.compile("(\\d+)(ms|s|m)").matcher(value);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("duration " + value + ": expected e.g. 300s, 5m, 1500ms");
        }
        long amount = Long.parseLong(matcher.group(1));
        return switch (matcher.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            default -> Duration.ofMinutes(amount);
        };
    }
}
