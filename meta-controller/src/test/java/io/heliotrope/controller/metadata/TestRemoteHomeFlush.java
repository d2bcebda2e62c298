package io.heliotrope.controller.metadata;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.catalog.PropagationMode;
import io.heliotrope.controller.catalog.ReplicationUpdate;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static io.heliotrope.controller.HeliotropeAssertions.assertRefused;
import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;

/** A flush from the site that writes a {@code remote} image names the image's home as the holder of its blocks, and no other site. */
@ExtendWith(ZooKeeperExtension.class)
class TestRemoteHomeFlush {
    private final TestingClock clock = new TestingClock(1_700_000_000_000L);
    private TestingController controller;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) {
        controller = TestingController.withImage(zooKeeper, clock, "vm", "a", "b", "c");
    }

    @AfterEach
    void stop() {
        controller.close();
    }

    private void setMode(PropagationMode mode) {
        await(controller.service().setImage("vm", new ReplicationUpdate(mode, null, null, "a", null, null, null, null, null, null)));
    }

    @Test
    void theHomeOfARemoteImageHoldsWhatAnotherSiteFlushes() {
        setMode(PropagationMode.REMOTE);
        Lease b = controller.openForWrite("vm", "b");

        Flushed flushed = controller.flush("vm", "b", b.epoch(),
                BlockEntries.builder().add(1, Version.compose(b.epoch(), 1), "a").add(2, Version.compose(b.epoch(), 2), "b").build());

        assertThat(flushed.metaSeq()).isEqualTo(1);
        assertRefused(() -> controller.flush("vm", "b", b.epoch(), BlockEntries.builder().add(3, Version.compose(b.epoch(), 3), "c").build()),
                ErrorCode.INVALID_ARGUMENT, "image 'vm': site b flushed blocks held by site c; a flush names its own site,"
                        + " the home a of the remote image, or a zero marker");
    }

    @Test
    void theHomeOfAnImageInAnotherModeHoldsOnlyWhatItFlushesItself() {
        setMode(PropagationMode.ON_DEMAND);
        Lease b = controller.openForWrite("vm", "b");

        assertRefused(() -> controller.flush("vm", "b", b.epoch(), BlockEntries.builder().add(1, Version.compose(b.epoch(), 1), "a").build()),
                ErrorCode.INVALID_ARGUMENT, "image 'vm': site b flushed blocks held by site a; a flush names its own site or a zero marker");
    }
}
