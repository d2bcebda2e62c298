package io.heliotrope.storage.session;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.ListedExport;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.Replication;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestCatalogExports {
    private static final long MIB = 1 << 20;

    private final TestingController controller = new TestingController();
    private final CatalogExports exports = new CatalogExports("virginia", controller.forSite("virginia"));

    @Test
    void listsEveryImageOfTheCatalogWhetherOpenedHereOrNot() {
        controller.createImage("created", 64 * MIB);
        controller.createImage("written", 4 * MIB);
        controller.replicate("written", Replication.defaults("taiwan").withMode(Replication.Mode.ON_DEMAND));
        Controller taiwan = controller.forSite("taiwan");
        long epoch = taiwan.open("written", 0).epoch();
        taiwan.flush("written", epoch, List.of(new BlockVersion(0, Version.compose(epoch, 1), BlockState.DATA)), "taiwan", false);

        assertThat(exports.list().join()).containsExactly(
                new ListedExport("created", "64 MiB, proactive, no data written yet"),
                new ListedExport("written", "4 MiB, on-demand, home taiwan, open at taiwan, current at taiwan"));
    }

    @Test
    void anImagesSizeComesFromTheCatalogWithoutTakingItsLease() {
        controller.createImage("disk", 64 * MIB);

        assertThat(exports.sizeBytes("disk").join()).isEqualTo(64 * MIB);
        assertThat(controller.holder("disk")).isNull();
        assertThatThrownBy(() -> exports.sizeBytes("nope").join())
                .cause()
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.IMAGE_NOT_FOUND));
    }

    @Test
    void aControllerThatDoesNotAnswerFailsTheListUntilItAnswersAgain() {
        controller.createImage("disk", 4 * MIB);
        controller.unreachable(true);

        assertThatThrownBy(() -> exports.list().join())
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PEER_UNAVAILABLE))
                .hasMessage("cannot reach the controller");
        assertThatThrownBy(() -> exports.list().join()).hasCauseInstanceOf(HeliotropeException.class);

        controller.unreachable(false);
        assertThat(exports.list().join()).extracting(ListedExport::name).containsExactly("disk");
    }
}
