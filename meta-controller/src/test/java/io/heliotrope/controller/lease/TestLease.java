package io.heliotrope.controller.lease;

import io.heliotrope.controller.zookeeper.Json;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestLease {
    private static final long TTL = 15_000;

    @Test
    void epochsOnlyGoUp() {
        Lease granted = Lease.none(Duration.ofMillis(TTL)).grantTo("a", 1_000, TTL);
        assertThat(granted).isEqualTo(new Lease("a", 1, 1, 16_000, TTL, "", List.of(), SyncRecovery.NONE));
        assertThat(granted.released()).isEqualTo(new Lease("", 1, 1, 0, TTL, "", List.of(), SyncRecovery.NONE));
        assertThat(granted.released().grantTo("b", 2_000, TTL).epoch()).isEqualTo(2);
        assertThat(granted.preparing("b").grantTo("b", 2_000, TTL)).isEqualTo(new Lease("b", 2, 2, 17_000, TTL, "", List.of(), SyncRecovery.NONE));
    }

    @Test
    void anAdvanceKeepsTheHoldingAndANewGrantStartsAnother() {
        Lease advanced = new Lease("a", 4, 4, 20_000, TTL, "", List.of(), SyncRecovery.NONE).advanced(30_000, TTL);
        assertThat(advanced).isEqualTo(new Lease("a", 5, 4, 45_000, TTL, "", List.of(), SyncRecovery.NONE));
        assertThat(advanced.heldAt("a", 4)).isTrue();
        assertThat(advanced.heldAt("a", 5)).isTrue();
        assertThat(advanced.heldAt("a", 3)).isFalse();
        assertThat(advanced.heldAt("b", 5)).isFalse();
        assertThat(advanced.released().heldAt("a", 5)).isFalse();
        assertThat(advanced.grantTo("a", 40_000, TTL).heldAt("a", 5)).isFalse();
    }

    @Test
    void aLeaseWrittenBeforeEpochsCouldAdvanceIsAHoldingOfOneEpoch() {
        byte[] old = "{\"holder\":\"a\",\"epoch\":7,\"expiresEpochMillis\":20000,\"ttlMillis\":15000,\"movingTo\":\"\"}"
                .getBytes(StandardCharsets.UTF_8);
        assertThat(Json.read(old, Lease.class, "lease")).isEqualTo(new Lease("a", 7, 7, 20_000, TTL, "", List.of(), SyncRecovery.NONE));
    }

    @Test
    void staleWritersAreToldWhy() {
        Lease lease = new Lease("b", 4, 4, 20_000, TTL, "", List.of(), SyncRecovery.NONE);
        assertStale(() -> lease.checkWriter("vm", "a", 3, 0, true), "image 'vm': lease epoch 3 of site a is stale: fenced by epoch 4 at site b");
        assertStale(() -> lease.checkWriter("vm", "b", 3, 0, true), "image 'vm': lease epoch 3 of site b is stale: fenced by epoch 4 at site b");
        assertStale(() -> lease.checkWriter("vm", "b", 4, 21_500, true), "image 'vm': lease epoch 4 of site b is stale: expired 1.5 s ago");
        assertStale(() -> lease.released().checkWriter("vm", "b", 4, 0, false), "image 'vm': lease epoch 4 of site b is stale: released");
        assertStale(() -> lease.released().checkWriter("vm", "a", 3, 0, false),
                "image 'vm': lease epoch 3 of site a is stale: fenced by epoch 4, since released");
        lease.checkWriter("vm", "b", 4, 19_999, true);
        lease.checkWriter("vm", "b", 4, 21_500, false);
    }

    @Test
    void aHeldLeaseNamesHolderEpochAndTimeLeft() {
        Lease lease = new Lease("b", 4, 4, 20_000, TTL, "", List.of(), SyncRecovery.NONE);
        assertThat(lease.activeAt(19_999)).isTrue();
        assertThat(lease.activeAt(20_000)).isFalse();
        assertThat(lease.heldError("vm", 7_750))
                .hasMessage("image 'vm': write lease held by site b (epoch 4, 12.3 s left)")
                .satisfies(e -> assertThat(e.code()).isEqualTo(ErrorCode.LEASE_HELD));
    }

    private static void assertStale(Runnable check, String message) {
        assertThatThrownBy(check::run)
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.STALE_LEASE))
                .hasMessage(message);
    }
}
