package io.heliotrope.scheduler.decision;

import io.heliotrope.proto.controller.v1.PeerRtt;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.RttRow;
import io.heliotrope.proto.controller.v1.Site;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The rows the sites reported, kept for a window, and the matrix a decision uses
 * (DESIGN.md section 7). Each entry is the minimum of the site's medians over the window:
 * a busy peer answers pings late, never early, so the minimum is what load cannot inflate
 * (TCP's min-RTT filter does the same). An entry whose newest measurement is older than
 * three of its site's probe periods is stale, and so unknown.
 */
public final class RttHistory {
    /** For a row that does not say how often its site probes (a site older than the scheduler). */
    static final Duration DEFAULT_PROBE_PERIOD = Duration.ofSeconds(10);
    static final long DEFAULT_INTRA_SITE_MICROS = 1_000;
    private static final int STALE_PERIODS = 3;

    private final Duration window;
    /** Samples by measuring site, then peer, oldest first. Guarded by this. */
    private final Map<String, Map<String, Deque<Sample>>> samples = new HashMap<>();
    /** The newest row of each site, for its time and probe period. Guarded by this. */
    private final Map<String, RttRow> newest = new HashMap<>();

    public RttHistory(Duration window) {
        this.window = requireNonNull(window, "window is null");
    }

    /** Takes the rows as the controller has them now; a row seen before adds nothing. */
    public synchronized void add(RttMatrix matrix) {
        for (RttRow row : matrix.getRowsList()) {
            RttRow known = newest.get(row.getSite());
            if (known != null && known.getMeasuredEpochMillis() >= row.getMeasuredEpochMillis()) {
                continue;
            }
            newest.put(row.getSite(), row);
            Map<String, Deque<Sample>> peers = samples.computeIfAbsent(row.getSite(), site -> new HashMap<>());
            long since = row.getMeasuredEpochMillis() - window.toMillis();
            for (PeerRtt peer : row.getPeersList()) {
                Deque<Sample> series = peers.computeIfAbsent(peer.getPeer(), name -> new ArrayDeque<>());
                series.addLast(new Sample(row.getMeasuredEpochMillis(), peer.getRttMicros()));
                // Trimmed here too, not only when a matrix is read: a peer no longer registered is never read again.
                while (series.peekFirst().epochMillis() < since) {
                    series.removeFirst();
                }
            }
        }
    }

    /** The matrix over {@code sites} (any order; the matrix numbers them by name) as of {@code now}. */
    public synchronized MeasuredRtt matrix(List<Site> sites, Instant now) {
        List<Site> sorted = sites.stream().sorted((a, b) -> a.getName().compareTo(b.getName())).toList();
        int n = sorted.size();
        long[][] micros = new long[n][n];
        String[][] unknown = new String[n][n];
        long since = now.minus(window).toEpochMilli();
        for (int from = 0; from < n; from++) {
            String site = sorted.get(from).getName();
            long intra = sorted.get(from).getIntraSiteRttMicros();
            micros[from][from] = intra == 0 ? DEFAULT_INTRA_SITE_MICROS : intra;
            RttRow row = newest.get(site);
            Map<String, Deque<Sample>> peers = samples.getOrDefault(site, Map.of());
            for (int to = 0; to < n; to++) {
                if (to == from) {
                    continue;
                }
                String peer = sorted.get(to).getName();
                Deque<Sample> series = peers.get(peer);
                while (series != null && !series.isEmpty() && series.peekFirst().epochMillis() < since) {
                    series.removeFirst();
                }
                micros[from][to] = MeasuredRtt.UNKNOWN;
                if (row == null || series == null || series.isEmpty()) {
                    unknown[from][to] = site + " has not measured " + peer;
                    continue;
                }
                Duration period = row.getProbePeriodMillis() == 0 ? DEFAULT_PROBE_PERIOD : Duration.ofMillis(row.getProbePeriodMillis());
                Duration age = Duration.ofMillis(now.toEpochMilli() - series.peekLast().epochMillis());
                if (age.compareTo(period.multipliedBy(STALE_PERIODS)) > 0) {
                    unknown[from][to] = site + " measured " + peer + " " + age.toSeconds() + " s ago, more than " + STALE_PERIODS
                            + " probe periods of " + period.toSeconds() + " s";
                    continue;
                }
                micros[from][to] = series.stream().mapToLong(Sample::micros).min().orElseThrow();
            }
        }
        return new MeasuredRtt(sorted.stream().map(Site::getName).toList(), micros, unknown);
    }

    private record Sample(long epochMillis, long micros) {
    }
}
