package io.heliotrope.controller.rtt;

import io.heliotrope.controller.zookeeper.Json;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/** The RTT matrix: one JSON row per measuring site under {@code ROOT/rtt}, each replaced by the site's next report. */
public final class RttStore {
    private static final Logger log = LoggerFactory.getLogger(RttStore.class);

    private final ZooKeeperStore zk;
    private final ZooKeeperLayout layout;
    private final Clock clock;

    public RttStore(ZooKeeperStore zk, ZooKeeperLayout layout, Clock clock) {
        this.zk = requireNonNull(zk, "zk is null");
        this.layout = requireNonNull(layout, "layout is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Stores what {@code site} measured now, probing every {@code probePeriodMillis}, replacing its earlier row. */
    public RttRow report(String site, Map<String, Long> rttMicros, long probePeriodMillis) {
        RttRow row = new RttRow(site, clock.millis(), rttMicros, probePeriodMillis);
        zk.put(layout.rtt(site), Json.write(row));
        log.debug("{}: round trips {}", site, row.rttMicros());
        return row;
    }

    /** Every site's latest row, in site order. */
    public List<RttRow> matrix() {
        return zk.readChildrenJson(layout.rtt(), RttRow.class);
    }
}
