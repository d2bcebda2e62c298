package io.heliotrope.wan;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * One link as a process, for manual runs and benchmarks:
 * {@code --listen HOST:PORT --target HOST:PORT [--delay 37.5ms] [--bandwidth 1gbit] [--window 6MiB]},
 * where the delay is one way. Runs until killed.
 */
public final class WanProxyMain {
    private static final Set<String> OPTIONS = Set.of("--listen", "--target", "--delay", "--bandwidth", "--window");

    private WanProxyMain() {}

    public static void main(String[] args) {
        LinkConfig config;
        InetSocketAddress listen;
        InetSocketAddress target;
        try {
            Map<String, String> options = options(args);
            listen = address(options, "--listen");
            target = address(options, "--target");
            config = new LinkConfig(
                    WanUnits.parseDuration(options.getOrDefault("--delay", "0ms")),
                    WanUnits.parseBitRate(options.getOrDefault("--bandwidth", "0bit")),
                    WanUnits.parseBytes(options.getOrDefault("--window", "6MiB")));
        } catch (IllegalArgumentException e) {
            System.err.println("wan-proxy: " + e.getMessage());
            System.err.println("usage: wan-proxy --listen HOST:PORT --target HOST:PORT"
                    + " [--delay 37.5ms] [--bandwidth 1gbit] [--window 6MiB]");
            System.exit(1);
            return;
        }
        WanEmulator emulator = new WanEmulator(1);
        // The event loop's threads keep the process alive; the hook lets a kill close it cleanly.
        Runtime.getRuntime().addShutdownHook(new Thread(emulator::close, "wan-shutdown"));
        try {
            WanLink link = emulator.addLink("proxy", listen, target, config);
            System.out.printf("wan-proxy: %s -> %s, %s%n", link.listenAddress(), target, config);
        } catch (IllegalStateException e) {
            System.err.println("wan-proxy: " + e.getMessage() + ": " + e.getCause());
            System.exit(1);
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!OPTIONS.contains(args[i]) || i + 1 == args.length) {
                throw new IllegalArgumentException("unknown option or missing value: " + args[i]);
            }
            options.put(args[i], args[i + 1]);
        }
        return options;
    }

    private static InetSocketAddress address(Map<String, String> options, String option) {
        String value = options.get(option);
        int colon = value == null ? -1 : value.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(option + " HOST:PORT is required");
        }
        try {
            return new InetSocketAddress(value.substring(0, colon), Integer.parseInt(value.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": invalid address " + value, e);
        }
    }
}
