package io.heliotrope.it;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.FlushResponse;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.heliotrope.error.ErrorCode.LEASE_HELD;
import static io.heliotrope.error.ErrorCode.PEER_UNAVAILABLE;
import static io.heliotrope.it.ControllerClient.errorOf;
import static io.heliotrope.proto.controller.v1.OpenMode.OPEN_MODE_READ;
import static io.heliotrope.proto.controller.v1.OpenMode.OPEN_MODE_WRITE;
import static org.assertj.core.api.Assertions.assertThat;

/** Committed metadata and leases survive the death of a ZooKeeper leader and of a controller process. */
class ControllerFailoverIT {
    private static final long SIZE = 1L << 40;
    private static final String SITE_A = "site-a";
    private static final String SITE_B = "site-b";
    /** Flush i writes blocks from i * STRIDE on; every fifth is large enough to span several ZooKeeper requests. */
    private static final long STRIDE = 1_000_000;
    private static final Duration PHASE_TIMEOUT = Duration.ofSeconds(60);
    /** Leaders killed, one after another, each while a large flush is on its way. */
    private static final int KILLS = 3;

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(2).withSites(SITE_A, SITE_B);

    @Test
    void flushesSurviveZooKeeperLeaderKills() {
        ControllerClient client = cluster.client(0);
        long epoch = client.createAndOpenForWrite("through-election", SIZE, SITE_A);
        long base = client.status("through-election").getMetaSeq();
        List<Flush> flushes;
        try (FlushStream stream = FlushStream.start(client, "through-election", epoch)) {
            for (int kill = 1; kill <= KILLS; kill++) {
                int from = stream.sending() + 1;
                Await.until("5 more flushes succeeded and a large one is on its way", PHASE_TIMEOUT,
                        () -> stream.succeededFrom(from) >= 5 && stream.sending() % 5 == 4);
                int leader = cluster.ensemble().leader();
                cluster.ensemble().kill9(leader);
                cluster.ensemble().awaitQuorum();
                cluster.ensemble().restart(leader);
            }
            int last = stream.sending() + 1;
            Await.until("5 more flushes succeeded after the last kill", PHASE_TIMEOUT, () -> stream.succeededFrom(last) >= 5);
            flushes = stream.stop();
        }

        Map<Long, BlockVersion> visible = cluster.client(1).open("through-election", SITE_B, OPEN_MODE_READ, 0).blocks();
        List<Flush> committed = new ArrayList<>();
        for (Flush flush : flushes) {
            long shown = flush.delta().countVisibleIn(visible);
            if (flush.succeeded()) {
                assertThat(shown).as("visible blocks of flush %d, which got metaSeq %d", flush.index(), flush.metaSeq()).isEqualTo(flush.delta().size());
            } else {
                assertThat(shown).as("visible blocks of flush %d, which failed with %s: all or none", flush.index(), flush.error())
                        .isIn(0L, (long) flush.delta().size());
                assertThat(flush.error().kind()).as("kind of %s, the error of flush %d", flush.error(), flush.index()).isEqualTo(ErrorCode.Kind.RETRYABLE);
            }
            if (shown > 0) {
                committed.add(flush);
            }
        }
        assertThat(visible).as("blocks visible").hasSize(committed.stream().mapToInt(flush -> flush.delta().size()).sum());
        for (int position = 0; position < committed.size(); position++) {
            Flush flush = committed.get(position);
            if (flush.succeeded()) {
                assertThat(flush.metaSeq()).as("metaSeq of flush %d, the %d. committed", flush.index(), position + 1).isEqualTo(base + position + 1);
            }
        }
        assertThat(cluster.client(1).status("through-election").getMetaSeq()).isEqualTo(base + committed.size());
    }

    @Test
    void clientMovesToSurvivingController() {
        ControllerClient first = cluster.client(0);
        ControllerClient survivor = cluster.client(1);
        first.createImage("survivor", SIZE);
        Lease lease = first.open("survivor", SITE_A, OPEN_MODE_WRITE, 0).lease();
        Map<Long, BlockVersion> written = new HashMap<>();
        FlushResponse before = flush(first, lease, 0, written);
        int bothSessions = cluster.ensemble().sessions();

        cluster.controller(0).kill9();

        assertThat(errorOf(() -> first.renew("survivor", SITE_A, lease.getEpoch()))).isEqualTo(PEER_UNAVAILABLE);
        assertThat(survivor.renew("survivor", SITE_A, lease.getEpoch()).getHolder()).isEqualTo(SITE_A);
        assertThat(flush(survivor, lease, 1, written).getMetaSeq()).isEqualTo(before.getMetaSeq() + 1);
        Await.until("the ZooKeeper session of the killed controller expired", ZooKeeperEnsemble.MAX_SESSION_TIMEOUT.multipliedBy(3),
                () -> cluster.ensemble().sessions() < bothSessions);
        Lease renewed = survivor.renew("survivor", SITE_A, lease.getEpoch());
        assertThat(renewed.getHolder()).isEqualTo(SITE_A);
        assertThat(renewed.getEpoch()).isEqualTo(lease.getEpoch());
        assertThat(errorOf(() -> survivor.open("survivor", SITE_B, OPEN_MODE_WRITE, 0))).isEqualTo(LEASE_HELD);
        assertThat(flush(survivor, lease, 2, written).getMetaSeq()).isEqualTo(before.getMetaSeq() + 2);
        assertThat(survivor.open("survivor", SITE_B, OPEN_MODE_READ, 0).blocks()).isEqualTo(written);
    }

    private static FlushResponse flush(ControllerClient client, Lease lease, int index, Map<Long, BlockVersion> written) {
        Delta delta = Delta.range(index * STRIDE, 1_000, SITE_A, Version.compose(lease.getEpoch(), index + 1));
        FlushResponse response = client.flush("survivor", SITE_A, lease.getEpoch(), delta, false);
        written.putAll(delta.entries());
        return response;
    }

    /** One flush of the stream: what it wrote, and the metaSeq it got or the error it failed with. */
    private record Flush(int index, Delta delta, long metaSeq, ErrorCode error) {
        boolean succeeded() {
            return error == null;
        }
    }

    /**
     * One site flushing back to back on its own thread, as fast as the controller answers:
     * flush i writes blocks from i * STRIDE on, every fifth of them 100,000 (several
     * ZooKeeper requests), the others 500.
     */
    private static final class FlushStream implements AutoCloseable {
        private final List<Flush> flushes = new ArrayList<>();
        private final AtomicInteger sending = new AtomicInteger(-1);
        private final AtomicBoolean stop = new AtomicBoolean();
        private final ExecutorService thread = Executors.newSingleThreadExecutor(runnable -> new Thread(runnable, "flushing-site"));
        private Future<?> running;

        static FlushStream start(ControllerClient client, String image, long epoch) {
            FlushStream stream = new FlushStream();
            stream.running = stream.thread.submit(() -> stream.run(client, image, epoch));
            return stream;
        }

        /** The index of the flush on its way, or of the last one sent. */
        int sending() {
            return sending.get();
        }

        /** How many flushes from index {@code from} on succeeded; fails at once if the stream has ended by itself. */
        long succeededFrom(int from) {
            if (running.isDone()) {
                stopAndGet();
                throw new AssertionError("the flush stream ended by itself");
            }
            synchronized (flushes) {
                return flushes.stream().filter(flush -> flush.index() >= from && flush.succeeded()).count();
            }
        }

        /** Lets the flush on its way finish; returns every flush, in order. */
        List<Flush> stop() {
            stopAndGet();
            synchronized (flushes) {
                return List.copyOf(flushes);
            }
        }

        @Override
        public void close() {
            stop.set(true);
            thread.shutdown();
        }

        private void run(ControllerClient client, String image, long epoch) {
            for (int i = 0; !stop.get(); i++) {
                Delta delta = Delta.range(i * STRIDE, i % 5 == 4 ? 100_000 : 500, SITE_A, Version.compose(epoch, i + 1));
                sending.set(i);
                Flush flush;
                try {
                    flush = new Flush(i, delta, client.flush(image, SITE_A, epoch, delta, false).getMetaSeq(), null);
                } catch (HeliotropeException e) {
                    flush = new Flush(i, delta, -1, e.code());
                }
                synchronized (flushes) {
                    flushes.add(flush);
                }
            }
        }

        private void stopAndGet() {
            stop.set(true);
            try {
                running.get();
            } catch (ExecutionException e) {
                throw new AssertionError("the flush stream failed", e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while stopping the flush stream", e);
            }
        }
    }
}
