package io.heliotrope.it;

import io.heliotrope.controller.http.TestingBrowser;
import io.heliotrope.proto.controller.v1.MigrationInFlight;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.RecordMigrationRequest;
import io.heliotrope.proto.controller.v1.ReportMigrationRequest;
import io.heliotrope.proto.controller.v1.VmServiceGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The controller's status page in Debian's headless chromium, on a real controller and two
 * sites behind a 75 ms WAN: what it shows after writes at one site and a move of the lease
 * to the other, a VM with a migration in flight and then done, and that it says so when the
 * controller loses ZooKeeper and when it stops answering.
 */
class StatusPageIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String VIRGINIA = "virginia";
    private static final String TAIWAN = "taiwan";
    /** 64 MiB in 128 regions of 512 KiB, as the page asks for. */
    private static final int REGIONS = 128;

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1, "--lease-ttl", "30s");

    @Test
    void showsSiteHealthTheLocalityOfWritesAndTheLeaseAfterAMove() throws Exception {
        TestingController controller = cluster.controller(0);
        try (WanSites sites = new WanSites(controller.target(), WanSites.WAN_75MS, List.of(VIRGINIA, TAIWAN));
                TestingBrowser browser = TestingBrowser.start()) {
            try {
                helio("image", "create", "demo", "--size", "64M", "--mode", "proactive", "--home", VIRGINIA, "--s", "0",
                        "--transitions", "virginia:taiwan=1.0,taiwan:virginia=1.0", "--controller", controller.target()).assertSuccess();
                browser.open(controller.statusUrl());
                browser.await("both sites up", TIMEOUT, "return [...document.querySelectorAll('#sites tbody tr')]"
                        + ".filter(row => row.dataset.up === 'true').length === 2;");
                assertThat(browser.text("#sites tr[data-site=virginia] [data-field=nbd]")).isEqualTo("127.0.0.1:" + sites.site(VIRGINIA).nbdPort());
                // The link's 75 ms, give or take: a round of pings on a loaded machine may take longer, and the next round measures again.
                browser.await("taiwan to virginia measured at 70 to 200 ms", TIMEOUT,
                        "const rtt = Number(document.querySelector('#rtt td[data-from=taiwan][data-to=virginia]')?.dataset.rttMs);"
                        + " return rtt >= 70 && rtt <= 200;");

                showsAVmAndItsMigrations(controller, browser);

                // The first 8 MiB at virginia: regions 0 to 15.
                ok("qemu-io", "-f", "raw", "-c", "write -P 0x11 0 8M", sites.site(VIRGINIA).nbdUri("demo"));
                awaitStrip(browser, "virginia's write", expectedStrip(VIRGINIA, 0, 16));
                browser.await("virginia's close: nobody holds the lease", TIMEOUT,
                        "return document.querySelector('.image[data-image=demo] [data-field=holder]').textContent === 'none';");
                long epoch = Long.parseLong(browser.text(".image[data-image=demo] [data-field=epoch]"));
                assertThat(colour(browser, ".strip[data-image=demo] .cell[data-region='0']"))
                        .isEqualTo(colour(browser, "#legend [data-site=virginia] .swatch"));
                browser.await("virginia's pushes to taiwan counted", TIMEOUT,
                        "return document.querySelector('#traffic tr[data-from=virginia][data-to=taiwan] [data-field=pushed]')?.textContent === '8.00 MiB';");

                // The move: taiwan opens the image for writing, writes 4 MiB at 32 MiB (regions 64 to 71) and keeps it open.
                try (ChildProcess writer = ChildProcess.start("qemu-io", List.of("stdbuf", "-oL", "qemu-io", "-f", "raw",
                        "-c", "write -P 0x22 32M 4M", "-c", "sleep 600000", sites.site(TAIWAN).nbdUri("demo")))) {
                    Await.until("taiwan's write acknowledged", TIMEOUT, () -> writer.output().contains("wrote 4194304/4194304 bytes"));
                    browser.await("the lease at taiwan", TIMEOUT,
                            "return document.querySelector('.image[data-image=demo] [data-field=holder]').textContent === 'taiwan';");
                    assertThat(Long.parseLong(browser.text(".image[data-image=demo] [data-field=epoch]"))).as("epoch after the move").isGreaterThan(epoch);
                    List<String> strip = expectedStrip(VIRGINIA, 0, 16);
                    Collections.fill(strip.subList(64, 72), TAIWAN);
                    // taiwan's checkpoint flushes its write while it holds the lease.
                    awaitStrip(browser, "taiwan's write", strip);
                    assertThat(colour(browser, ".strip[data-image=demo] .cell[data-region='64']"))
                            .isEqualTo(colour(browser, "#legend [data-site=taiwan] .swatch"))
                            .isNotEqualTo(colour(browser, "#legend [data-site=virginia] .swatch"));
                    browser.screenshot(Path.of("target", "status-page.png"));
                }

                browser.await("taiwan's close: nobody holds the lease", TIMEOUT,
                        "return document.querySelector('.image[data-image=demo] [data-field=holder]').textContent === 'none';");

                // Two of the three ZooKeeper nodes die: the controller answers, but without the cluster.
                ZooKeeperEnsemble ensemble = cluster.ensemble();
                int leader = ensemble.leader();
                ensemble.kill9(leader);
                ensemble.kill9(leader == 1 ? 2 : 1);
                browser.await("the page to tell of the controller's trouble", TIMEOUT,
                        "return document.getElementById('connection').dataset.state === 'error';");
                assertThat(browser.text("#connection")).startsWith("the controller answers 503: ");
                browser.await("the page to say ZooKeeper is the part that is down", TIMEOUT,
                        "return document.getElementById('zookeeper').dataset.state === 'down';");
                assertThat(browser.text("#zookeeper")).startsWith("ZooKeeper DOWN for ");
                ensemble.restartKilled();
                browser.await("the page live again", TIMEOUT, "return document.getElementById('connection').dataset.state === 'live';");
                browser.await("the page to say ZooKeeper is back", TIMEOUT,
                        "return document.getElementById('zookeeper').dataset.state === 'up';");
                assertThat(browser.text("#zookeeper")).isEqualTo("ZooKeeper up");

                controller.kill9();
                browser.await("the page to notice the controller is gone", TIMEOUT,
                        "return document.getElementById('connection').dataset.state === 'lost';");
                assertThat(browser.text("#connection")).startsWith("the controller is not answering (last answer ");
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "\n" + sites.logs(), e);
            }
        }
    }

    /**
     * A VM defined but not started, then a migration of it as its driver reports it: in flight
     * with its progress, then in the history once recorded (no QEMU runs; the lead's migration
     * IT shows a real one).
     */
    private static void showsAVmAndItsMigrations(TestingController controller, TestingBrowser browser) {
        helio("vm", "create", "web", "--site", VIRGINIA, "--disk", "demo", "--memory", "128M", "--controller", controller.target()).assertSuccess();
        browser.await("the VM, not running at virginia", TIMEOUT,
                "return document.querySelector('#vm-web [data-field=state]')?.textContent === 'not running';");
        assertThat(browser.attributes("#vm-web .disk", "data-image")).containsExactly("demo");
        assertThat(browser.text("#vm-web [data-field=site]")).isEqualTo(VIRGINIA);

        VmServiceGrpc.VmServiceBlockingStub vms = VmServiceGrpc.newBlockingStub(controller.channel()).withDeadlineAfter(10, TimeUnit.SECONDS);
        vms.reportMigration(ReportMigrationRequest.newBuilder().setName("web").setInFlight(MigrationInFlight.newBuilder().setId("m1")
                .setFromSite(VIRGINIA).setToSite(TAIWAN).setPhase("precopy").setStartedEpochMillis(System.currentTimeMillis())
                .setRamTotal(128L << 20).setRamRemaining(32L << 20).setRequestedBy("operator")).build());
        browser.await("the migration in flight", TIMEOUT, "return document.querySelector('tr.migration-in-flight[data-vm=web]') !== null;");
        assertThat(browser.text("tr.migration-in-flight[data-vm=web] [data-field=ram-sent]")).isEqualTo("75% of 128.0 MiB");

        vms.recordMigration(RecordMigrationRequest.newBuilder().setName("web").setRecord(MigrationRecord.newBuilder().setId("m1")
                .setFromSite(VIRGINIA).setToSite(TAIWAN).setOutcome(MigrationOutcome.MIGRATION_OUTCOME_CANCELLED).setReason("asked to")
                .setRequestedBy("operator").setStartedEpochMillis(System.currentTimeMillis())).build());
        browser.await("the migration in the history", TIMEOUT, "return document.querySelector('#migration-history tr.migration-done[data-vm=web]') !== null"
                + " && document.querySelector('tr.migration-in-flight') === null;");
        assertThat(browser.attributes("#migration-history tr.migration-done", "data-outcome")).containsExactly("cancelled");
    }

    /** Every region of a 64 MiB image zeros but {@code count} regions from {@code first}, held by {@code site}. */
    private static List<String> expectedStrip(String site, int first, int count) {
        List<String> strip = new ArrayList<>(Collections.nCopies(REGIONS, ""));
        Collections.fill(strip.subList(first, first + count), site);
        return strip;
    }

    private static void awaitStrip(TestingBrowser browser, String what, List<String> expected) {
        String selector = ".strip[data-image=demo] .cell";
        try {
            browser.await(what + " on the locality strip", TIMEOUT,
                    "return JSON.stringify([...document.querySelectorAll(arguments[0])].map(cell => cell.dataset.site))"
                            + " === JSON.stringify(arguments[1]);",
                    selector, expected);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nthe strip: " + browser.attributes(selector, "data-site"), e);
        }
    }

    private static String colour(TestingBrowser browser, String selector) {
        return browser.script("return getComputedStyle(document.querySelector(arguments[0])).backgroundColor;", selector).asText();
    }
}
