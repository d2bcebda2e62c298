package io.heliotrope.controller.metrics;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.metadata.BlockEntries;
import io.heliotrope.controller.service.OpenMode;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.version.Version;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static io.heliotrope.controller.HeliotropeAssertions.assertRefused;
import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(ZooKeeperExtension.class)
class TestControllerMetrics {
    private final TestingClock clock = new TestingClock(1_700_000_000_000L);
    private TestingController controller;
    private MeterRegistry registry;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) {
        controller = TestingController.withImage(zooKeeper, clock, "vm", "a", "b");
        registry = controller.metrics().registry();
    }

    @AfterEach
    void stop() {
        controller.close();
    }

    @Test
    void aFlushIsTimedByOutcomeAndCountsItsBlocks() {
        Lease lease = controller.openForWrite("vm", "a");
        controller.flush("vm", "a", lease.epoch(), BlockEntries.builder()
                .add(1, Version.compose(lease.epoch(), 1), "a")
                .add(2, Version.compose(lease.epoch(), 1), "a")
                .addZero(3, Version.compose(lease.epoch(), 1))
                .build());
        assertRefused(() -> controller.flush("vm", "a", lease.epoch() + 1, BlockEntries.EMPTY), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 2 of site a is stale: fenced by epoch 1 at site a");

        assertThat(registry.get("heliotrope.controller.flushes").tag("outcome", "ok").timer().count()).isEqualTo(1);
        assertThat(registry.get("heliotrope.controller.flushes").tag("outcome", "stale_lease").timer().count()).isEqualTo(1);
        assertThat(registry.get("heliotrope.controller.flushed.blocks").counter().count()).isEqualTo(3);
        assertThat(controller.metrics().scrape())
                .contains("heliotrope_controller_flushes_seconds_count{outcome=\"ok\"} 1")
                .contains("heliotrope_controller_flushes_seconds_bucket{outcome=\"ok\",le=")
                .contains("heliotrope_controller_flushed_blocks_total 3");
    }

    @Test
    void opensCountByModeAndOutcome() {
        controller.openForWrite("vm", "a");
        assertRefused(() -> controller.openForWrite("vm", "b"), ErrorCode.LEASE_HELD,
                "image 'vm': write lease held by site a (epoch 1, 15.0 s left)");
        await(controller.service().openImage("vm", "b", OpenMode.READ, 0, Duration.ZERO));

        assertThat(opens("write", "ok")).isEqualTo(1);
        assertThat(opens("write", "lease_held")).isEqualTo(1);
        assertThat(opens("read", "ok")).isEqualTo(1);
    }

    @Test
    void aLeaseGrantedAgainAfterItExpiredCounts() {
        controller.openForWrite("vm", "a");
        controller.openForWrite("vm", "a");
        assertThat(registry.get("heliotrope.controller.leases.expired").counter().count()).isZero();

        clock.advance(TestingController.LEASE_TTL.plusSeconds(1));
        controller.openForWrite("vm", "b");

        assertThat(registry.get("heliotrope.controller.leases.expired").counter().count()).isEqualTo(1);
        assertThat(controller.metrics().scrape()).contains("heliotrope_controller_leases_expired_total 1");
    }

    @Test
    void zooKeeperOperationsAreTimedAndTheirFailuresCounted() {
        assertThat(registry.get("heliotrope.controller.zookeeper.latency").tag("op", "commit").timer().count()).isPositive();
        assertThat(registry.get("heliotrope.controller.zookeeper.latency").tag("op", "read_many").timer().count()).isPositive();

        assertThatThrownBy(() -> controller.zk().read("no-slash"))
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.STORAGE_FAILURE))
                .hasMessageEndingWith(" failed to read no-slash: Path must start with / character");

        assertThat(registry.get("heliotrope.controller.zookeeper.errors").tag("op", "read").counter().count()).isEqualTo(1);
        assertThat(registry.get("heliotrope.controller.zookeeper.errors").tag("op", "commit").counter().count()).isZero();
    }

    private double opens(String mode, String outcome) {
        return registry.get("heliotrope.controller.opens").tag("mode", mode).tag("outcome", outcome).counter().count();
    }
}
