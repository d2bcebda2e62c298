package io.heliotrope.benchmarks.sun;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class TestOrderedHostProvider {
    private static final List<InetSocketAddress> SERVERS = IntStream.rangeClosed(1, 3)
            .mapToObj(n -> new InetSocketAddress("127.0.1.1" + n, 2181)).toList();

    @Test
    void sessionsStartAtTheirOwnServerAndGoRound() {
        assertThat(IntStream.range(0, 6).mapToObj(i -> new OrderedHostProvider(SERVERS, i).next(0)))
                .containsExactly(SERVERS.get(0), SERVERS.get(1), SERVERS.get(2), SERVERS.get(0), SERVERS.get(1), SERVERS.get(2));
        OrderedHostProvider second = new OrderedHostProvider(SERVERS, 1);
        assertThat(IntStream.range(0, 4).mapToObj(i -> second.next(0)))
                .containsExactly(SERVERS.get(1), SERVERS.get(2), SERVERS.get(0), SERVERS.get(1));
    }
}
