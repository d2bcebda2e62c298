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
        assertThat(granted).isEqualTo(new Lease("a", 1, 1, 16_000, TTL, "", List.of(), SyncRecovery.NONE, 0, ""));
        assertThat(granted.released()).isEqualTo(new Lease("", 1, 1, 0, TTL, "", List.of(), SyncRecovery.NONE, 0, ""));
        assertThat(granted.released().grantTo("b", 2_000, TTL).epoch()).isEqualTo(2);
        assertThat(granted.preparing("b", 1_000, 30_000).grantTo("b", 2_000, TTL)).isEqualTo(new Lease("b", 2, 2, 17_000, TTL, "", List.of(), SyncRecovery.NONE, 0, ""));
    }

    @Test
    void anAdvanceKeepsTheHoldingAndANewGrantStartsAnother() {
        Lease advanced = new Lease("a", 4, 4, 20_000, TTL, "", List.of(), SyncRecovery.NONE, 0, "").advanced(30_000, TTL);
        assertThat(advanced).isEqualTo(new Lease("a", 5, 4, 45_000, TTL, "", List.of(), SyncRecovery.NONE, 0, ""));
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
        assertThat(Json.read(old, Lease.class, "lease")).isEqualTo(new Lease("a", 7, 7, 20_000, TTL, "", List.of(), SyncRecovery.NONE, 0, ""));
    }

    @Test
    void staleWritersAreToldWhy() {
        Lease lease = new Lease("b", 4, 4, 20_000, TTL, "", List.of(), SyncRecovery.NONE, 0, "");
        assertStale(() -> lease.checkWriter("vm", "a", 3, 0, true), "image 'vm': lease epoch 3 of site a is stale: fenced by epoch 4 at site b");
        assertStale(() -> lease.checkWriter("vm", "b", 3, 0, true), "image 'vm': lease epoch 3 of site b is stale: fenced by epoch 4 at site b");
        assertStale(() -> lease.brokenAt(20_000).checkWriter("vm", "b", 4, 21_500, true),
                "image 'vm': lease epoch 4 of site b is stale: broken by an operator 1.5 s ago");
        assertStale(() -> lease.released().checkWriter("vm", "b", 4, 0, false), "image 'vm': lease epoch 4 of site b is stale: released");
        assertStale(() -> lease.released().checkWriter("vm", "a", 3, 0, false),
                "image 'vm': lease epoch 3 of site a is stale: fenced by epoch 4, since released");
        lease.checkWriter("vm", "b", 4, 19_999, true);
        lease.checkWriter("vm", "b", 4, 21_500, false);
        lease.brokenAt(20_000).checkWriter("vm", "b", 4, 21_500, false);
    }

    @Test
    void aLapsedLeaseThatNobodyTookIsStillItsHoldersButAnyoneMayTakeIt() {
        Lease lease = new Lease("b", 4, 4, 20_000, TTL, "", List.of(), SyncRecovery.NONE, 0, "");
        lease.checkWriter("vm", "b", 4, 60_000, true);
        assertThat(lease.activeAt(60_000)).isFalse();
        assertThat(lease.broken()).isFalse();
        assertThat(lease.brokenAt(10_000).broken()).isTrue();
        assertStale(() -> lease.grantTo("a", 60_000, TTL).checkWriter("vm", "b", 4, 60_000, true),
                "image 'vm': lease epoch 4 of site b is stale: fenced by epoch 5 at site a");
    }

    @Test
    void aHeldLeaseNamesHolderEpochAndTimeLeft() {
        Lease lease = new Lease("b", 4, 4, 20_000, TTL, "", List.of(), SyncRecovery.NONE, 0, "");
        assertThat(lease.activeAt(19_999)).isTrue();
        assertThat(lease.activeAt(20_000)).isFalse();
        assertThat(lease.heldError("vm", 7_750))
                .hasMessage("image 'vm': write lease held by site b (epoch 4, 12.3 s left)")
                .satisfies(e -> assertThat(e.code()).isEqualTo(ErrorCode.LEASE_HELD));
    }

    @Test
    void aPrepareLapsesUnlessRenewedAndAMoveRemembersWhereItCameFrom() {
        Lease prepared = new Lease("a", 4, 4, 20_000, TTL, "", List.of(), SyncRecovery.NONE, 0, "x").preparing("b", 10_000, 30_000);
        assertThat(prepared).isEqualTo(new Lease("a", 4, 4, 20_000, TTL, "b", List.of(), SyncRecovery.NONE, 40_000, ""));
        assertThat(prepared.renewed(39_999, TTL).movingTo()).isEqualTo("b");
        assertThat(prepared.renewed(40_000, TTL)).isEqualTo(new Lease("a", 4, 4, 55_000, TTL, "", List.of(), SyncRecovery.NONE, 0, ""));
        prepared.checkMove("vm", "b", 39_999);
        assertThatThrownBy(() -> prepared.checkMove("vm", "b", 42_500))
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.STALE_LEASE))
                .hasMessage("image 'vm': cannot move the lease to b: its prepare lapsed 2.5 s ago (not renewed); prepare it again");
        assertThatThrownBy(() -> prepared.checkMove("vm", "c", 10_000))
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
                .hasMessage("image 'vm': cannot move the lease to c: the prepared move is to b");

        Lease moved = prepared.movedTo("b", 30_000, TTL);
        assertThat(moved).isEqualTo(new Lease("b", 5, 5, 45_000, TTL, "", List.of(), SyncRecovery.NONE, 0, "a"));
        assertThat(moved.renewed(40_000, TTL).handedFrom()).isEqualTo("a");
        assertThat(moved.completed().handedFrom()).isEmpty();
        assertThat(moved.grantTo("a", 40_000, TTL).handedFrom()).isEmpty();
        assertThat(moved.brokenAt(31_000)).isEqualTo(new Lease("b", 5, 5, 31_000, 0, "", List.of(), SyncRecovery.NONE, 0, "a"));
    }

    private static void assertStale(Runnable check, String message) {
        assertThatThrownBy(check::run)
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.STALE_LEASE))
                .hasMessage(message);
    }
}
