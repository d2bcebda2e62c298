package io.heliotrope.scheduler.plugin;

import io.heliotrope.scheduler.spi.RttMatrix;

import java.util.List;

/** A fixed matrix: {@code micros[from][to]} between {@code sites}, sorted by name. */
record TestingRttMatrix(List<String> sites, long[][] micros) implements RttMatrix {
    @Override
    public int count() {
        return sites.size();
    }

    @Override
    public String name(int site) {
        return sites.get(site);
    }

    @Override
    public int indexOf(String name) {
        return sites.indexOf(name);
    }

    @Override
    public long micros(int from, int to) {
        return micros[from][to];
    }
}
