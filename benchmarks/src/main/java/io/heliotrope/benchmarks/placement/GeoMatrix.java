package io.heliotrope.benchmarks.placement;

import io.heliotrope.scheduler.spi.RttMatrix;

import java.util.Random;

/**
 * A seeded random RTT matrix over {@code sites} sites named {@code s00, s01, ...} in 4 regions
 * (site {@code x} in region {@code x % 4}): 1 ms within a site, 1-10 ms within a region,
 * 60-250 ms between regions (a base per pair of regions plus up to 10 ms per pair of sites),
 * each direction measured on its own (up to 2% apart), whole microseconds.
 */
final class GeoMatrix implements RttMatrix {
    static final int REGIONS = 4;

    private final long[][] micros;

    GeoMatrix(int sites, Random random) {
        long[][] base = new long[REGIONS][REGIONS];
        for (int a = 0; a < REGIONS; a++) {
            for (int b = a + 1; b < REGIONS; b++) {
                base[a][b] = 60_000 + random.nextInt(180_000);
                base[b][a] = base[a][b];
            }
        }
        micros = new long[sites][sites];
        for (int a = 0; a < sites; a++) {
            micros[a][a] = 1_000;
            for (int b = a + 1; b < sites; b++) {
                long rtt = a % REGIONS == b % REGIONS
                        ? 1_000 + random.nextInt(9_000)
                        : base[a % REGIONS][b % REGIONS] + random.nextInt(10_000);
                micros[a][b] = rtt;
                micros[b][a] = rtt + random.nextInt((int) (rtt / 50) + 1);
            }
        }
    }

    @Override
    public long micros(int from, int to) {
        return micros[from][to];
    }

    @Override
    public int count() {
        return micros.length;
    }

    @Override
    public String name(int site) {
        return String.format("s%02d", site);
    }

    @Override
    public int indexOf(String name) {
        for (int site = 0; site < count(); site++) {
            if (name(site).equals(name)) {
                return site;
            }
        }
        return -1;
    }
}
