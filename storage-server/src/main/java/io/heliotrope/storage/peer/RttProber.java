package io.heliotrope.storage.peer;

import io.heliotrope.error.HeliotropeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * Measures this site's round trips to the other sites (DESIGN.md section 7). Each round
 * pings every other site of the directory {@code probes} times, one ping after the other,
 * and reports the median per site to the sink; the next round starts {@code interval}
 * after the last one ended, so rounds never overlap. A site with a failed ping is left out
 * of the round's report; it is logged when it stops answering and when it answers again,
 * not every round.
 */
public final class RttProber implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RttProber.class);

    private final Peers peers;
    private final SiteDirectory directory;
    private final RttSink sink;
    private final ScheduledExecutorService scheduler;
    private final Duration interval;
    private final int probes;
    private final Set<String> unreachable = ConcurrentHashMap.newKeySet();
    private Future<?> next;
    private boolean closed;

    public RttProber(Peers peers, SiteDirectory directory, RttSink sink, ScheduledExecutorService scheduler, Duration interval, int probes) {
        this.peers = requireNonNull(peers, "peers is null");
        this.directory = requireNonNull(directory, "directory is null");
        this.sink = requireNonNull(sink, "sink is null");
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
        this.interval = requireNonNull(interval, "interval is null");
        if (probes < 1) {
            throw new IllegalArgumentException("probes must be 1 or more: " + probes);
        }
        this.probes = probes;
    }

    /** Starts the first round now. */
    public void start() {
        schedule(Duration.ZERO);
    }

    private void round() {
        Map<String, CompletableFuture<Duration>> medians = new LinkedHashMap<>();
        try {
            List<String> sites = directory.others();
            unreachable.retainAll(sites);
            sites.forEach(site -> medians.put(site, median(site).handle((rtt, failure) -> answered(site, rtt, failure))));
        } catch (RuntimeException e) {
            log.warn("RTT round: cannot read the site directory", e);
        }
        // The report is a blocking call to the controller: on the scheduler, never on the gRPC thread that answered the last ping.
        CompletableFuture.allOf(medians.values().toArray(CompletableFuture[]::new)).whenCompleteAsync((ignored, failure) -> {
            Map<String, Duration> rtts = new TreeMap<>();
            medians.forEach((site, median) -> {
                if (median.join() != null) {
                    rtts.put(site, median.join());
                }
            });
            try {
                sink.report(rtts, interval);
            } catch (RuntimeException e) {
                log.warn("RTT round: the report of {} sites failed", rtts.size(), e);
            }
            schedule(interval);
        }, scheduler);
    }

    /** The median, or null for a site that did not answer; logs the changes between the two. */
    private Duration answered(String site, Duration rtt, Throwable failure) {
        if (failure != null) {
            if (unreachable.add(site)) {
                log.warn("{}: does not answer pings, left out of the RTT matrix until it does: {}", site, HeliotropeException.unwrap(failure).getMessage());
            }
            return null;
        }
        if (unreachable.remove(site)) {
            log.info("{}: answers pings again", site);
        }
        return rtt;
    }

    private CompletableFuture<Duration> median(String site) {
        CompletableFuture<List<Duration>> samples = CompletableFuture.completedFuture(new ArrayList<>(probes));
        for (int i = 0; i < probes; i++) {
            samples = samples.thenCompose(taken -> peers.ping(site).thenApply(rtt -> {
                taken.add(rtt);
                return taken;
            }));
        }
        return samples.thenApply(RttProber::median);
    }

    static Duration median(List<Duration> samples) {
        List<Duration> sorted = samples.stream().sorted().toList();
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : sorted.get(middle - 1).plus(sorted.get(middle)).dividedBy(2);
    }

    private synchronized void schedule(Duration delay) {
        if (closed) {
            return;
        }
        try {
            next = scheduler.schedule(this::round, delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            log.warn("RTT rounds stop: the scheduler refused the next one", e);
        }
    }

    /** Stops the rounds; a round under way finishes without scheduling another. */
    @Override
    public synchronized void close() {
        closed = true;
        if (next != null) {
            next.cancel(false);
        }
    }
}
