package io.heliotrope.storage.image;

import io.heliotrope.storage.Replication.Mode;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class TestExportDescriptions {
    private static final long MIB = 1 << 20;

    @Test
    void sizesUseTheLargestUnitWithADecimalOnlyWhenInexact() {
        assertThat(ExportDescriptions.size(4096)).isEqualTo("4 KiB");
        assertThat(ExportDescriptions.size(256 * MIB)).isEqualTo("256 MiB");
        assertThat(ExportDescriptions.size(1536 * MIB)).isEqualTo("1.5 GiB");
        assertThat(ExportDescriptions.size(1L << 50)).isEqualTo("1 PiB");
    }

    @Test
    void aCatalogImageShowsItsModeHomeHolderAndWhereItIsCurrent() {
        assertThat(ExportDescriptions.of(256 * MIB, Mode.PROACTIVE, "virginia", "", Map.of("virginia", 65_536L)))
                .isEqualTo("256 MiB, proactive, home virginia, current at virginia");
        assertThat(ExportDescriptions.of(64 * MIB, Mode.ON_DEMAND, "virginia", "taiwan",
                Map.of("taiwan", 100L, "virginia", 300L, "oregon", 1L)))
                .isEqualTo("64 MiB, on-demand, home virginia, open at taiwan, current at virginia (75%), taiwan (25%), oregon (<1%)");
    }

    @Test
    void anImageWithoutHomeOrDataSaysSo() {
        assertThat(ExportDescriptions.of(4 * MIB, Mode.SYNC, "", "", Map.of()))
                .isEqualTo("4 MiB, sync, no data written yet");
    }
}
