package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.spi.RttMatrix;

import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/** A matrix over {@code micros[from][to]}; sites are named {@code s0, s1, ...} unless named. */
public final class TestingRttMatrix implements RttMatrix {
    private final List<String> names;
    private final long[][] micros;

    public TestingRttMatrix(List<String> names, long[][] micros) {
        if (names.size() != micros.length) {
            throw new IllegalArgumentException(names.size() + " names for " + micros.length + " sites");
        }
        this.names = List.copyOf(names);
        this.micros = micros;
    }

    public static TestingRttMatrix of(long[][] micros) {
        return new TestingRttMatrix(IntStream.range(0, micros.length).mapToObj(site -> "s" + site).toList(), micros);
    }

    @Override
    public int count() {
        return names.size();
    }

    @Override
    public String name(int site) {
        return names.get(site);
    }

    @Override
    public int indexOf(String name) {
        return names.indexOf(name);
    }

    @Override
    public long micros(int from, int to) {
        return micros[from][to];
    }

    @Override
    public String toString() {
        return names + " " + Arrays.deepToString(micros);
    }
}
