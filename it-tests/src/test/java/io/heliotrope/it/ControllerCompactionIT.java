package io.heliotrope.it;

import io.heliotrope.it.ControllerClient.Opened;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import static io.heliotrope.proto.controller.v1.OpenMode.OPEN_MODE_READ;
import static org.assertj.core.api.Assertions.assertThat;

/** Compaction in one controller while another commits flushes and sites sync: every open sees exactly the committed state. */
class ControllerCompactionIT {
    private static final long SIZE = 1L << 30;
    private static final String SITE_A = "site-a";
    private static final String SITE_B = "site-b";
    private static final int FLUSHES = 60;

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(2).withSites(SITE_A, SITE_B);

    /** What a site got when it opened from {@code cachedMetaSeq}. */
    private record Sync(long cachedMetaSeq, Opened opened) {}

    @Test
    void opensDuringCompactionSeeCommittedState() throws Exception {
        ControllerClient writer = cluster.client(0);
        ControllerClient other = cluster.client(1);
        long epoch = writer.createAndOpenForWrite("compacting", SIZE, SITE_A);
        Map<Long, Delta> deltas = new ConcurrentHashMap<>();
        AtomicInteger flushed = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Sync> syncs = new ArrayList<>();
        ExecutorService workers = Executors.newFixedThreadPool(2, runnable -> new Thread(runnable, "compaction-it"));
        try {
            Future<?> flushing = workers.submit(() -> {
                Random random = new Random(1);
                for (int i = 0; i < FLUSHES; i++) {
                    Delta delta = Delta.random(random, 5_000, 50_000, SITE_A, epoch);
                    deltas.put(writer.flush("compacting", SITE_A, epoch, delta, false).getMetaSeq(), delta);
                    flushed.incrementAndGet();
                }
            });
            Future<?> compacting = workers.submit(() -> {
                while (!stop.get()) {
                    other.compact("compacting");
                }
            });
            Random random = new Random(2);
            while (!flushing.isDone()) {
                long cached = random.nextInt(flushed.get() + 1);
                syncs.add(new Sync(cached, other.open("compacting", SITE_B, OPEN_MODE_READ, cached)));
            }
            flushing.get();
            stop.set(true);
            compacting.get();
        } finally {
            stop.set(true);
            workers.shutdown();
        }

        assertThat(deltas.keySet()).as("metaSeqs of the flushes").containsExactlyInAnyOrderElementsOf(
                LongStream.rangeClosed(1, FLUSHES).boxed().toList());
        for (Sync sync : syncs) {
            long to = sync.opened().metaSeq();
            long from = sync.opened().snapshot() ? 0 : sync.cachedMetaSeq();
            assertThat(sync.opened().blocks()).as("entries of an open from %d (snapshot: %s) at metaSeq %d", sync.cachedMetaSeq(), sync.opened().snapshot(), to)
                    .isEqualTo(applied(deltas, from, to));
        }
        assertThat(syncs).as("opens during the stream").hasSizeGreaterThan(5);
        assertThat(syncs).as("opens served from a snapshot").anyMatch(sync -> sync.opened().snapshot());
        assertThat(other.open("compacting", SITE_B, OPEN_MODE_READ, 0).blocks()).isEqualTo(applied(deltas, 0, FLUSHES));
    }

    /** The deltas after {@code from} up to {@code to}, applied in order. */
    private static Map<Long, BlockVersion> applied(Map<Long, Delta> deltas, long from, long to) {
        Map<Long, BlockVersion> state = new HashMap<>();
        for (long seq = from + 1; seq <= to; seq++) {
            state.putAll(deltas.get(seq).entries());
        }
        return state;
    }
}
