package io.heliotrope.benchmarks.cassandra;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.config.ProgrammaticDriverConfigLoaderBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The paper's Cassandra generator (Fig. 9): {@code --threads} synchronous threads, each
 * doing 4 reads to 1 write of a random key of {@code --keys} 1 KB values at consistency ONE,
 * with {@code --think-ms} between two requests. {@code load} creates keyspace {@code bench}
 * (SimpleStrategy, RF 2) and writes every key once; {@code run} runs until killed and writes
 * one CSV row per second: {@code unix_s,reads,writes,errors}; {@code inspect} appends what
 * {@link ClusterState} reads to {@code --tokens} and {@code --streams}.
 * <p>
 * Arguments: {@code load|run|inspect --contact HOST:PORT --dc DC --keys N [--threads 4] [--think-ms 0]
 * [--site-prefix FROM=TO] [--csv FILE]}; see {@link SitePrefixTranslator} for the prefix.
 */
public final class CassandraLoad {
    private static final int VALUE_BYTES = 1024;
    private static final int LOAD_IN_FLIGHT = 32;

    private final CqlSession session;
    private final int keys;
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();

    private CassandraLoad(CqlSession session, int keys) {
        this.session = session;
        this.keys = keys;
    }

    private static final String USAGE = "usage: CassandraLoad load|run|inspect --contact HOST:PORT --dc DC --keys N [--threads 4] "
            + "[--think-ms 0] [--site-prefix FROM=TO] [--csv FILE (run)] [--tokens FILE --streams FILE (inspect)]";
    private static final Set<String> NAMES = Set.of("--contact", "--dc", "--keys", "--threads", "--think-ms", "--site-prefix", "--csv", "--tokens",
            "--streams");
    private static final Map<String, List<String>> REQUIRED = Map.of(
            "load", List.of("--contact", "--dc", "--keys"),
            "run", List.of("--contact", "--dc", "--keys", "--csv"),
            "inspect", List.of("--contact", "--dc", "--keys", "--tokens", "--streams"));

    public static void main(String[] args) throws Exception {
        Map<String, String> options;
        int keys;
        int threads;
        int thinkMs;
        try {
            options = options(args);
            keys = positive(options, "--keys", null);
            threads = positive(options, "--threads", "4");
            thinkMs = positive(options, "--think-ms", "0");
        } catch (IllegalArgumentException e) {
            System.err.println("cassandra-load: " + e.getMessage() + "\n" + USAGE);
            System.exit(2);
            return;
        }
        try (CqlSession session = session(options)) {
            CassandraLoad load = new CassandraLoad(session, keys);
            switch (args[0]) {
                case "load" -> load.load();
                case "inspect" -> ClusterState.print(session, Path.of(options.get("--tokens")), Path.of(options.get("--streams")));
                default -> load.run(threads, Duration.ofMillis(thinkMs), Path.of(options.get("--csv")));
            }
        }
    }

    /** The options after the mode, each known and given a value, the mode's required ones present. */
    private static Map<String, String> options(String[] args) {
        if (args.length == 0 || !REQUIRED.containsKey(args[0])) {
            throw new IllegalArgumentException(args.length == 0 ? "no mode" : "unknown mode " + args[0]);
        }
        Map<String, String> options = new HashMap<>();
        for (int i = 1; i < args.length; i += 2) {
            if (!NAMES.contains(args[i]) || i + 1 == args.length) {
                throw new IllegalArgumentException("unknown option or missing value: " + args[i]);
            }
            options.put(args[i], args[i + 1]);
        }
        for (String name : REQUIRED.get(args[0])) {
            if (!options.containsKey(name)) {
                throw new IllegalArgumentException(args[0] + " needs " + name);
            }
        }
        if (!options.get("--contact").matches("[^:]+:\\d+")) {
            throw new IllegalArgumentException("--contact must be HOST:PORT, not " + options.get("--contact"));
        }
        return options;
    }

    /** A whole number option ({@code --think-ms} may be 0, the others must be more). */
    private static int positive(Map<String, String> options, String name, String fallback) {
        String text = options.getOrDefault(name, fallback);
        int value;
        try {
            value = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, not " + text);
        }
        if (value < (name.equals("--think-ms") ? 0 : 1)) {
            throw new IllegalArgumentException(name + " is out of range: " + value);
        }
        return value;
    }

    private static CqlSession session(Map<String, String> options) {
        String[] contact = options.get("--contact").split(":");
        ProgrammaticDriverConfigLoaderBuilder config = DriverConfigLoader.programmaticBuilder()
                .withString(DefaultDriverOption.REQUEST_CONSISTENCY, "ONE")
                .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(5))
                .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofSeconds(5))
                .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, Duration.ofSeconds(10))
                .withDuration(DefaultDriverOption.CONTROL_CONNECTION_AGREEMENT_TIMEOUT, Duration.ofSeconds(30))
                // Every node may be at the other site (during and after a move): use them there too.
                .withInt(DefaultDriverOption.LOAD_BALANCING_DC_FAILOVER_MAX_NODES_PER_REMOTE_DC, 6)
                .withBoolean(DefaultDriverOption.LOAD_BALANCING_DC_FAILOVER_ALLOW_FOR_LOCAL_CONSISTENCY_LEVELS, true)
                .withBoolean(DefaultDriverOption.RECONNECT_ON_INIT, true);
        if (options.containsKey("--site-prefix")) {
            config.withClass(DefaultDriverOption.ADDRESS_TRANSLATOR_CLASS, SitePrefixTranslator.class)
                    .withString(SitePrefixTranslator.SITE_PREFIX, options.get("--site-prefix"));
        }
        return CqlSession.builder()
                .addContactPoint(new InetSocketAddress(contact[0], Integer.parseInt(contact[1])))
                .withLocalDatacenter(options.get("--dc"))
                .withConfigLoader(config.build())
                .build();
    }

    private void load() throws InterruptedException {
        session.execute("CREATE KEYSPACE IF NOT EXISTS bench WITH replication = "
                + "{'class': 'SimpleStrategy', 'replication_factor': 2}");
        session.execute("CREATE TABLE IF NOT EXISTS bench.kv (k int PRIMARY KEY, v blob)");
        PreparedStatement insert = session.prepare("INSERT INTO bench.kv (k, v) VALUES (?, ?)");
        Semaphore inFlight = new Semaphore(LOAD_IN_FLIGHT);
        for (int k = 0; k < keys; k++) {
            inFlight.acquire();
            CompletionStage<?> done = session.executeAsync(insert.bind(k, value()));
            done.whenComplete((r, e) -> {
                if (e != null) {
                    errors.incrementAndGet();
                }
                inFlight.release();
            });
        }
        inFlight.acquire(LOAD_IN_FLIGHT);
        if (errors.get() > 0) {
            throw new IllegalStateException(errors.get() + " of " + keys + " inserts failed");
        }
        System.out.printf("cassandra-load: %d keys of %d bytes written%n", keys, VALUE_BYTES);
    }

    private void run(int threads, Duration think, Path csv) throws IOException, InterruptedException {
        PreparedStatement read = session.prepare("SELECT v FROM bench.kv WHERE k = ?");
        PreparedStatement write = session.prepare("INSERT INTO bench.kv (k, v) VALUES (?, ?)");
        for (int i = 0; i < threads; i++) {
            Thread worker = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (true) {
                    int k = random.nextInt(keys);
                    boolean isWrite = random.nextInt(5) == 0;
                    try {
                        session.execute(isWrite ? write.bind(k, value()) : read.bind(k));
                        (isWrite ? writes : reads).incrementAndGet();
                    } catch (RuntimeException e) {
                        errors.incrementAndGet();
                    }
                    LockSupport.parkNanos(think.toNanos());
                }
            }, "client-" + i);
            worker.setDaemon(true);
            worker.start();
        }
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv), true)) {
            out.println("unix_s,reads,writes,errors");
            System.out.printf("cassandra-load: %d threads running%n", threads);
            long second = System.currentTimeMillis() / 1000 + 1;
            while (true) {
                Thread.sleep(Math.max(0, second * 1000 - System.currentTimeMillis()));
                out.printf("%d,%d,%d,%d%n", second, reads.getAndSet(0), writes.getAndSet(0), errors.getAndSet(0));
                second++;
            }
        }
    }

    private static ByteBuffer value() {
        byte[] bytes = new byte[VALUE_BYTES];
        ThreadLocalRandom.current().nextBytes(bytes);
        return ByteBuffer.wrap(bytes);
    }
}
