package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.heliotrope.it.SiteCloseToOpenIT.blocksAt;
import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code sync} mode's promise: the writer site is killed right after its writes were
 * acknowledged, before it flushed any of them, and the other site, which took the sync
 * copies, reads every one of them once the writer's lease expired. With two sites the
 * survivor then writes on only with {@code --sync-min 1}, degraded until the lost site is
 * back and holds what it missed; with the default (every copy) its writes fail.
 */
class SyncRecoveryIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1, "--lease-ttl", "3s");

    @Test
    void killingTheWriterSiteLosesNoAcknowledgedWrite() throws Exception {
        String target = cluster.controller(0).target();
        // b first: a lists the sites it may copy to when it joins.
        try (TestingSite b = TestingSite.start("--site", "site-b", "--controller", target);
                TestingSite a = TestingSite.start("--site", "site-a", "--controller", target, "--checkpoint-interval", "1h",
                        "--checkpoint-blocks", "1000000")) {
            helio("image", "create", "critical", "--size", "64M", "--mode", "sync", "--controller", target).assertSuccess();
            // qemu-io keeps the image open after the write, so that site-a never gets to flush it at a close; its output
            // is line-buffered, so that it tells of the acknowledgement at once.
            try (ChildProcess writer = ChildProcess.start("qemu-io", List.of("stdbuf", "-oL", "qemu-io", "-f", "raw",
                    "-c", "write -P 0x5a 0 4M", "-c", "sleep 600000", a.nbdUri("critical")))) {
                try {
                    Await.until("the write was acknowledged", TIMEOUT, () -> writer.output().contains("wrote 4194304/4194304 bytes"));
                } catch (AssertionError e) {
                    // Seen once in eight runs: keep what both sides said for the next look.
                    throw new AssertionError(e.getMessage() + "%nqemu-io:%n%s%nsite-a:%n%s%nsite-b:%n%s".formatted(writer.output(), a.log(), b.log()), e);
                }
                a.kill9();
            }
            ControllerClient controller = cluster.client(0);
            assertThat(controller.status("critical").getMetaSeq()).as("site-a flushed nothing").isZero();

            // site-b's open waits for site-a's lease to expire, as long as its open wait; the retries cover a slow machine.
            Await.until("site-b read every acknowledged byte", TIMEOUT, () -> {
                Tools.Result read = run("qemu-io", "-f", "raw", "-c", "read -P 0x5a 0 4M", b.nbdUri("critical"));
                return read.exitCode() == 0 && !read.stdout().contains("Pattern verification failed") && read.stdout().contains("read 4194304/4194304 bytes");
            });
            assertThat(blocksAt(controller.status("critical"), "site-b")).isEqualTo(1024);
            assertThat(controller.status("critical").getLease().getRecovery().getSyncSitesCount()).isZero();
            assertThat(b.log()).contains("critical: recovered 1024 blocks of the dead holding of [site-a]");
        }
    }

    @Test
    void withSyncMinOneTheSurvivorWritesOnDegradedAndTheReturningSiteGetsWhatItMissed() throws Exception {
        String target = cluster.controller(0).target();
        ControllerClient controller = cluster.client(0);
        try (TestingSite a = TestingSite.start("--site", "site-a", "--controller", target);
                TestingSite b = TestingSite.start("--site", "site-b", "--controller", target)) {
            helio("image", "create", "lasting", "--size", "64M", "--mode", "sync", "--sync-min", "1", "--controller", target).assertSuccess();
            writeThenKillTheWriter(b, "lasting", "write -P 0x11 0 4M");
            Await.until("site-a recovered site-b's acknowledged writes", TIMEOUT, () -> reads(a, "lasting", "read -P 0x11 0 4M"));

            try (ChildProcess writer = ChildProcess.start("qemu-io", List.of("stdbuf", "-oL", "qemu-io", "-f", "raw",
                    "-c", "write -P 0x22 4M 4M", "-c", "sleep 600000", a.nbdUri("lasting")))) {
                Await.until("site-a acknowledged the write without site-b", TIMEOUT, () -> writer.output().contains("wrote 4194304/4194304 bytes"));
                Await.until("image show says the image is degraded", TIMEOUT, () -> show("lasting").contains(
                        "sync:        DEGRADED at site-a: copies go to no site; not answering: site-b; 1024 blocks written are only at site-a"));
                assertThat(a.metric("heliotrope_sync_degraded_images")).isEqualTo(1);
                assertThat(a.log()).containsOnlyOnce("lasting: DEGRADED: a write at block");
                assertThat(helio("status", "--controller", target).assertSuccess().stdout()).containsPattern("lasting +site-a +DEGRADED +none +site-b +1024");

                b.restart();
                Await.until("site-b holds every write it missed", TIMEOUT, () -> show("lasting").contains("sync:        healthy at site-a: copies go to site-b"));
                assertThat(a.metric("heliotrope_sync_degraded_images")).isZero();
                assertThat(a.metric("heliotrope_sync_caught_up_blocks_total")).isEqualTo(1024);
                assertThat(a.log()).contains("lasting: healthy again: sites [site-b] hold every write");
            }
            Await.until("site-a closed the image", TIMEOUT, () -> controller.status("lasting").getLease().getHolder().isEmpty());
            assertThat(reads(a, "lasting", "read -P 0x11 0 4M", "read -P 0x22 4M 4M")).isTrue();
            Await.until("site-a closed the image again", TIMEOUT, () -> controller.status("lasting").getLease().getHolder().isEmpty());
            a.kill9();
            // Every block from site-b's own copies: site-a, which holds them all, is gone.
            assertThat(reads(b, "lasting", "read -P 0x11 0 4M", "read -P 0x22 4M 4M")).isTrue();
        }
    }

    @Test
    void withTheDefaultSyncMinTheSurvivorRefusesWritesWithAClearErrorAndLosesNothing() throws Exception {
        String target = cluster.controller(0).target();
        try (TestingSite a = TestingSite.start("--site", "site-a", "--controller", target, "--open-wait", "4s");
                TestingSite b = TestingSite.start("--site", "site-b", "--controller", target)) {
            helio("image", "create", "strict", "--size", "64M", "--mode", "sync", "--controller", target).assertSuccess();
            assertThat(show("strict")).contains("sync copies: 1 (min 2: every copy, the default)");
            writeThenKillTheWriter(b, "strict", "write -P 0x33 0 4M");
            Await.until("site-a recovered site-b's acknowledged writes", TIMEOUT, () -> reads(a, "strict", "read -P 0x33 0 4M"));

            Tools.Result refused = run("qemu-io", "-f", "raw", "-c", "write -P 0x44 4M 64k", a.nbdUri("strict"));
            assertThat(refused.stdout() + refused.stderr()).as("%s", refused).contains("Input/output error");
            assertThat(a.log()).contains("strict: writes fail: fewer than the 2 copies its sync min needs can be made: no answer from site-b");
            assertThat(reads(a, "strict", "read -P 0x33 0 4M")).as("nothing acknowledged is lost").isTrue();

            b.restart();
            Await.until("site-a writes again once site-b is back", TIMEOUT, () -> {
                Tools.Result write = run("qemu-io", "-f", "raw", "-c", "write -P 0x55 4M 64k", a.nbdUri("strict"));
                return write.exitCode() == 0 && write.stdout().contains("wrote 65536/65536 bytes");
            });
            assertThat(reads(a, "strict", "read -P 0x33 0 4M", "read -P 0x55 4M 64k")).isTrue();
        }
    }

    /** Writes at {@code writer} and kills it as soon as the write is acknowledged, before it flushed anything. */
    private static void writeThenKillTheWriter(TestingSite writer, String image, String write) {
        try (ChildProcess qemuIo = ChildProcess.start("qemu-io", List.of("stdbuf", "-oL", "qemu-io", "-f", "raw", "-c", write, "-c", "sleep 600000",
                writer.nbdUri(image)))) {
            Await.until("the write was acknowledged", TIMEOUT, () -> qemuIo.output().contains("wrote 4194304/4194304 bytes"));
            writer.kill9();
        }
    }

    /** Whether every read (with its pattern check) succeeds at {@code site}. */
    private static boolean reads(TestingSite site, String image, String... reads) {
        List<String> command = new ArrayList<>(List.of("qemu-io", "-f", "raw"));
        for (String read : reads) {
            command.add("-c");
            command.add(read);
        }
        command.add(site.nbdUri(image));
        Tools.Result result = run(command.toArray(String[]::new));
        return result.exitCode() == 0 && !result.stdout().contains("Pattern verification failed") && !result.stdout().contains("failed")
                && result.stdout().split("read \\d+/\\d+ bytes", -1).length == reads.length + 1;
    }

    private static String show(String image) {
        return helio("image", "show", image, "--controller", cluster.controller(0).target()).assertSuccess().stdout();
    }
}
