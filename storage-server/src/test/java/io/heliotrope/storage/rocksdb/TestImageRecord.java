package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.ImageInfo;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class TestImageRecord {
    private static final Instant CREATED = Instant.ofEpochMilli(1_700_000_000_000L);

    @Test
    void aCopyKeepsItsIdentity() {
        ImageRecord record = new ImageRecord(new ImageInfo(3, "disk", 8192, CREATED, UUID.randomUUID()), 9);

        assertThat(ImageRecord.decode("disk", record.encode())).isEqualTo(record);
    }

    @Test
    void aRecordFromBeforeIdentitiesDecodesWithNone() {
        ImageRecord record = new ImageRecord(new ImageInfo(3, "disk", 8192, CREATED, null), 9);
        byte[] encoded = record.encode();

        assertThat(encoded).hasSize(32);
        assertThat(ImageRecord.decode("disk", encoded)).isEqualTo(record);
    }
}
