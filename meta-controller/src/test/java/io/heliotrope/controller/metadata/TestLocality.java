package io.heliotrope.controller.metadata;

import io.heliotrope.error.ErrorCode;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.heliotrope.controller.HeliotropeAssertions.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

class TestLocality {
    private static final int BLOCK = 4096;

    @Test
    void eachRegionGoesToTheSiteHoldingMostOfItsBlocks() {
        BlockEntries entries = BlockEntries.builder()
                .add(0, 1, "taiwan")
                .add(1, 1, "virginia")
                .add(2, 1, "virginia")
                .addZero(3, 1)
                .add(4, 1, "taiwan")
                .add(9, 1, "virginia")
                // Past the end of the image (10 blocks): not counted.
                .add(12, 1, "ireland")
                .build();

        Locality locality = Locality.of(new ImageView(1, 7, entries), 10, BLOCK, 4);

        assertThat(locality.metaSeq()).isEqualTo(7);
        assertThat(locality.regionBytes()).isEqualTo(3 * BLOCK);
        assertThat(locality.sites()).containsExactly("taiwan", "virginia");
        assertThat(locality.regions()).containsExactly(
                new Locality.Region(2, 2 / 3f),
                new Locality.Region(1, 1 / 3f),
                new Locality.Region(0, 0),
                new Locality.Region(2, 1));
    }

    @Test
    void ofTwoSitesHoldingAsManyTheFirstByNameWins() {
        BlockEntries entries = BlockEntries.builder().add(0, 1, "virginia").add(1, 1, "taiwan").build();

        Locality locality = Locality.of(new ImageView(1, 1, entries), 2, BLOCK, 1);

        assertThat(locality.regions()).containsExactly(new Locality.Region(1, 0.5f));
        assertThat(locality.sites().get(0)).isEqualTo("taiwan");
    }

    @Test
    void aSmallImageHasARegionPerBlock() {
        Locality locality = Locality.of(new ImageView(1, 0, BlockEntries.EMPTY), 3, BLOCK, Locality.DEFAULT_REGIONS);

        assertThat(locality.regionBytes()).isEqualTo(BLOCK);
        assertThat(locality.sites()).isEmpty();
        assertThat(locality.regions()).isEqualTo(List.of(new Locality.Region(0, 0), new Locality.Region(0, 0), new Locality.Region(0, 0)));
    }

    @Test
    void theRegionCountIsCheckedAndDefaults() {
        assertThat(Locality.regions("vm", 0)).isEqualTo(256);
        assertThat(Locality.regions("vm", 4096)).isEqualTo(4096);
        assertRefused(() -> Locality.regions("vm", 4097), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': the locality map has 1 to 4096 regions (0 for 256), not 4097");
        assertRefused(() -> Locality.regions("vm", -1), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': the locality map has 1 to 4096 regions (0 for 256), not 4294967295");
    }
}
