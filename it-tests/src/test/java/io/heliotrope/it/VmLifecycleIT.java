package io.heliotrope.it;

import io.heliotrope.controller.http.TestingBrowser;
import io.heliotrope.proto.cli.v1.VmView;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.wan.WanLink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A VM's life beyond its migration, with the records guest at virginia (two sites 75 ms
 * apart): its console followed across a migration, a site restarted under it, its QEMU
 * dying, its removal, and a migration on the status page, in headless Chromium, in flight
 * and then in the history.
 */
class VmLifecycleIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final Pattern RECORD = Pattern.compile("HELIO-REC (\\d+)\r?\n");

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1);

    @Test
    void theConsoleShowsTheGuestsLinesBeforeAndAfterAMigration(@TempDir Path scratch) {
        try (MigratingGuest guest = MigratingGuest.start(cluster, "consoled");
                ChildProcess console = ChildProcess.start("vm console", Tools.helioCommand(List.of("-Xmx256m"), "vm", "console", "consoled",
                        "--controller", cluster.controller(0).target()))) {
            long before = guest.awaitRecordsPast(3);
            console.awaitOutput(Pattern.compile("HELIO-REC " + before + "\r?\n"), TIMEOUT);

            MigrationRecord moved = guest.migrate("taiwan");
            assertThat(moved.getOutcome()).as(guest.report(moved)).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
            long after = guest.awaitRecordsPast(guest.lastRecord() + 3);
            console.awaitOutput(Pattern.compile("HELIO-REC " + after + "\r?\n"), TIMEOUT);

            assertThat(console.output()).contains("[helio: consoled moved from virginia to taiwan; its console there follows]");
            List<Long> shown = records(console.output());
            assertThat(shown).as("records shown once each, in order, across the move").isSorted().doesNotHaveDuplicates();
            assertThat(shown).contains(before, after);
            guest.verifyRecords(guest.stop(), "taiwan", scratch);
        }
    }

    @Test
    void aRestartedSiteReattachesToItsGuestAndVmLsIsUnchanged(@TempDir Path scratch) {
        try (MigratingGuest guest = MigratingGuest.start(cluster, "reattached")) {
            guest.awaitRecordsPast(3);
            String listed = guest.helio("vm", "ls").assertSuccess().stdout();
            VmView shown = JsonOutput.parse(guest.helio("vm", "show", "reattached", "--json"), VmView.newBuilder());

            guest.sites().site("virginia").restart();

            assertThat(guest.helio("vm", "ls").assertSuccess().stdout()).as("vm ls after the restart").isEqualTo(listed).contains("running");
            VmView again = JsonOutput.parse(guest.helio("vm", "show", "reattached", "--json"), VmView.newBuilder());
            assertThat(again.getRuntime().getPid()).as("the same QEMU").isEqualTo(shown.getRuntime().getPid());
            guest.awaitRecordsPast(guest.lastRecord() + 3);
            guest.verifyRecords(guest.stop(), "virginia", scratch);
        }
    }

    @Test
    void aVmWhoseQemuDiedIsShownExitedWithTheReasonAndCanBeRemoved() {
        try (MigratingGuest guest = MigratingGuest.start(cluster, "dies")) {
            guest.awaitRecordsPast(1);
            guest.killQemu("virginia");

            Await.until("vm ls shows the QEMU exited", TIMEOUT, () -> guest.helio("vm", "ls").stdout().matches("(?s).*dies\\s+virginia\\s+exited.*"));
            VmView shown = JsonOutput.parse(guest.helio("vm", "show", "dies", "--json"), VmView.newBuilder());
            assertThat(shown.getState()).isEqualTo("exited");
            assertThat(shown.getRuntime().getExitReason()).as("why it exited").isNotEmpty();
            assertThat(guest.helio("vm", "show", "dies").assertSuccess().stdout()).contains("virginia, exited (" + shown.getRuntime().getExitReason());

            assertThat(guest.helio("vm", "rm", "dies").assertSuccess().stdout()).isEqualTo("removed VM dies (its disks dies-records stay in the catalog)\n");
            assertThat(guest.helio("vm", "show", "dies").exitCode()).isNotZero();
        }
    }

    @Test
    void theStatusPageShowsAMigrationInFlightThenInTheHistory() throws Exception {
        try (MigratingGuest guest = MigratingGuest.start(cluster, "watched"); TestingBrowser browser = TestingBrowser.start()) {
            guest.awaitRecordsPast(3);
            browser.open(cluster.controller(0).statusUrl());
            browser.await("the VM running at virginia", TIMEOUT,
                    "return document.querySelector('#vm-watched')?.dataset.state === 'running';");
            // 40 Mbit/s for the RAM: the migration takes long enough to be seen in flight.
            List<WanLink> links = guest.sites().migrationLinks("virginia", "taiwan");
            links.forEach(link -> link.setConfig(WanSites.WAN_75MS.withBandwidth(40_000_000)));

            CompletableFuture<MigrationRecord> migration = guest.migrateAsync("taiwan");
            browser.await("the migration in flight", TIMEOUT,
                    "return document.querySelector('#migrations-in-flight tr.migration-in-flight[data-vm=watched]') !== null;");
            String phase = browser.text("#migrations-in-flight tr.migration-in-flight[data-vm=watched] [data-field=phase]");
            MigrationRecord record = migration.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(record.getOutcome()).as(guest.report(record)).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
            browser.await("the migration in the history", TIMEOUT,
                    "return document.querySelector('#migration-history tr.migration-done[data-vm=watched]')?.dataset.outcome === 'completed';");
            browser.await("nothing in flight any more", TIMEOUT,
                    "return document.querySelector('#migrations-in-flight tr.migration-in-flight[data-vm=watched]') === null;");
            browser.await("the VM at taiwan", TIMEOUT, "return document.querySelector('#vm-watched')?.dataset.site === 'taiwan';");
            assertThat(phase).as("the phase shown in flight").matches("preparing|precopy|switchover");
            assertThat(browser.text("#migration-history tr.migration-done[data-vm=watched] [data-field=route]")).contains("virginia").contains("taiwan");
            browser.screenshot(Path.of("target", "status-page-migration.png"));
        }
    }

    private static List<Long> records(String output) {
        List<Long> records = new ArrayList<>();
        Matcher matcher = RECORD.matcher(output);
        while (matcher.find()) {
            records.add(Long.parseLong(matcher.group(1)));
        }
        return records;
    }
}
