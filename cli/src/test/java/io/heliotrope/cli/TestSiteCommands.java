package io.heliotrope.cli;

import io.heliotrope.proto.storage.v1.ImageInfo;
import io.heliotrope.proto.storage.v1.ListImagesResponse;
import io.heliotrope.proto.storage.v1.PeerTraffic;
import io.heliotrope.proto.storage.v1.SiteImageStatus;
import io.heliotrope.proto.storage.v1.SiteStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The listings of a site talked to alone ({@code --server}), against a site with canned answers. */
class TestSiteCommands {
    private static final SiteStatus STATUS = SiteStatus.newBuilder()
            .setSite("local")
            .setStartedEpochMillis(1_700_000_000_000L)
            .addImages(SiteImageStatus.newBuilder().setName("vm1").setAllocatedBlocks(300).setZeroBlocks(4).setConnections(2))
            .addImages(SiteImageStatus.newBuilder().setName("vm2").setQueuedBlocks(8).setOldestQueuedMillis(61_000))
            .addPeers(PeerTraffic.newBuilder().setPeer("taiwan").setPushedBytes(3L << 20).setFetchedBytes(512))
            .build();
    private static final ListImagesResponse IMAGES = ListImagesResponse.newBuilder()
            .addImages(ImageInfo.newBuilder().setName("vm1").setSizeBytes(1L << 30).setBlockSize(4096).setAllocatedBlocks(300))
            .build();

    private static TestingSite site;

    @BeforeAll
    static void start() {
        site = new TestingSite(STATUS, IMAGES);
    }

    @AfterAll
    static void stop() {
        site.close();
    }

    @Test
    void statusShowsTheSiteItsImagesAndItsPeers() {
        assertThat(HelioRun.of("status", "--server", site.target()).stdout()).isEqualTo("""
                site local: the site at %s (from --server), started 2023-11-14T22:13:20Z
                images (blocks of 4.0 KiB):
                  NAME  DATA  ZERO  DIRTY  QUEUED        LAG  CONNECTIONS
                  vm1    300     4      0       0          -            2
                  vm2      0     0      0       8  1 min 1 s            0
                peers (block bytes since the site started):
                  PEER     PUSHED  FETCHED
                  taiwan  3.0 MiB    512 B
                """.formatted(site.target()));
    }

    @Test
    void jsonIsTheSitesAnswer() {
        assertThat(HelioRun.of("status", "--json", "--server", site.target()).json(SiteStatus.newBuilder())).isEqualTo(STATUS);
        assertThat(HelioRun.of("image", "ls", "--json", "--server", site.target()).json(ListImagesResponse.newBuilder())).isEqualTo(IMAGES);
    }

    @Test
    void imageLsListsWhatTheSiteStores() {
        assertThat(HelioRun.of("image", "--server", site.target(), "ls").stdout()).isEqualTo("""
                NAME     SIZE  ALLOCATED  CREATED
                vm1   1.0 GiB    1.2 MiB  1970-01-01T00:00:00Z
                """);
    }
}
