package io.heliotrope.controller.http;

import io.heliotrope.controller.cluster.VmsStatus;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.http.GetServer;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.heliotrope.controller.http.SampleCluster.DEMO;
import static io.heliotrope.controller.http.SampleCluster.TAIWAN;
import static io.heliotrope.controller.http.SampleCluster.VIRGINIA;
import static org.assertj.core.api.Assertions.assertThat;

/** The status page in headless chromium, against a {@link TestingStatusSource}. */
class TestStatusPage {
    private static final Duration TIMEOUT = Duration.ofSeconds(15);
    private static final String LIVE = "return document.getElementById('connection').dataset.state === 'live';";

    private static TestingBrowser browser;
    private final TestingStatusSource source = new TestingStatusSource();
    private GetServer server;

    @BeforeAll
    static void startBrowser() {
        browser = TestingBrowser.start();
    }

    @AfterAll
    static void stopBrowser() {
        browser.close();
    }

    @BeforeEach
    void openPage() throws IOException {
        source.set(SampleCluster.status(VIRGINIA, 3, 1 << 20), List.of(SampleCluster.locality()));
        server = StatusHttpServer.start(new InetSocketAddress("127.0.0.1", 0), source.source(), () -> "");
        browser.open("http://127.0.0.1:" + server.port() + "/");
        browser.await("the page to show the cluster", TIMEOUT, LIVE);
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @Test
    void showsSitesRoundTripsLeaseQueuesAndLocality() throws IOException {
        assertThat(browser.attributes("#sites tbody tr", "data-site")).containsExactly(VIRGINIA, TAIWAN);
        assertThat(browser.attributes("#sites tbody tr", "data-up")).containsExactly("true", "false");
        assertThat(browser.text("#sites tr[data-site=taiwan] [data-field=state]")).isEqualTo("down");
        assertThat(browser.text("#sites tr[data-site=taiwan] [data-field=error]")).isEqualTo("cannot reach 127.0.0.1:7411 (Connection refused)");
        assertThat(browser.text("#sites tr[data-site=taiwan] [data-field=last-seen]")).isEqualTo("never");
        assertThat(browser.text("#sites tr[data-site=virginia] [data-field=nbd]")).isEqualTo("127.0.0.1:10809");
        assertThat(browser.attributes("#rtt td[data-from=virginia][data-to=taiwan]", "data-rtt-ms")).containsExactly("75.2");
        assertThat(browser.attributes("#rtt td[data-from=taiwan][data-to=virginia]", "data-rtt-ms")).containsExactly("74.8");

        String image = ".image[data-image=demo] ";
        assertThat(browser.text(image + "[data-field=holder]")).isEqualTo(VIRGINIA);
        assertThat(browser.text(image + "[data-field=epoch]")).isEqualTo("3");
        assertThat(browser.text(image + "[data-field=mode]")).isEqualTo("proactive");
        assertThat(browser.text(image + "[data-field=size]")).isEqualTo("64.0 MiB");
        assertThat(browser.text(image + "tr[data-site=virginia] [data-field=queued-blocks]")).isEqualTo("40");
        assertThat(browser.text(image + "tr[data-site=virginia] [data-field=oldest-queued]")).isEqualTo("2.5 s");
        assertThat(browser.text(image + "tr[data-site=taiwan] [data-field=current-blocks]")).isEqualTo("0");
        assertThat(browser.text(image + "tr[data-site=taiwan] [data-field=queued-blocks]")).as("taiwan is down: no report").isEqualTo("–");
        assertThat(browser.text(image + "tr[data-site=virginia] [data-field=elsewhere-blocks]")).isEqualTo("12");
        assertThat(browser.text(image + "tr[data-site=virginia] [data-field=pull]")).isEqualTo("running 84.2 MiB/s");
        assertThat(browser.text(image + "tr[data-site=taiwan] [data-field=pull]")).isEqualTo("–");
        assertThat(browser.attributes(".strip[data-image=demo] .cell", "data-site"))
                .containsExactly(VIRGINIA, VIRGINIA, "", TAIWAN, "", "", "", "");
        assertThat(browser.text("#traffic tr[data-from=virginia][data-to=taiwan] [data-field=pushed]")).isEqualTo("1.00 MiB");
        assertThat(browser.text("#lease-moves")).isEqualTo("none");
        browser.screenshot(Path.of("target", "status-page-sample.png"));
    }

    @Test
    void eachRegionHasItsSitesLegendColourAndZerosAreGrey() {
        List<String> legend = colours("#legend [data-site] .swatch");
        assertThat(browser.attributes("#legend > [data-site]", "data-site")).containsExactly(VIRGINIA, TAIWAN, "");
        assertThat(legend).doesNotHaveDuplicates();
        assertThat(colours(".strip[data-image=demo] .cell"))
                .containsExactly(legend.get(0), legend.get(0), legend.get(2), legend.get(1), legend.get(2), legend.get(2), legend.get(2), legend.get(2));
    }

    @Test
    void refreshesLive() {
        source.set(SampleCluster.status(VIRGINIA, 3, TAIWAN, 11 << 20), List.of(SampleCluster.locality()));
        browser.await("the move in flight and the new traffic", TIMEOUT,
                "return document.querySelector('#lease-moves [data-image=demo]') !== null"
                        + " && document.querySelector('#traffic [data-field=pushed]').textContent === '11.0 MiB';");
        assertThat(browser.text("#lease-moves [data-image=demo]")).isEqualTo("demo: virginia → taiwan (epoch 3)");
        assertThat(browser.text("#traffic tr[data-from=virginia][data-to=taiwan] [data-field=push-rate]")).endsWith("/s");

        source.set(SampleCluster.status(TAIWAN, 4, 11 << 20), List.of(SampleCluster.locality()));
        browser.await("the lease at taiwan", TIMEOUT,
                "return document.querySelector('.image[data-image=demo] [data-field=holder]').textContent === 'taiwan';");
        assertThat(browser.text(".image[data-image=demo] [data-field=epoch]")).isEqualTo("4");
        assertThat(browser.text("#lease-moves")).isEqualTo("none");
    }

    @Test
    void showsEachVmWithItsStateDisksAndMigrations() throws IOException {
        source.set(SampleCluster.vms(2_000));
        browser.await("the VMs", TIMEOUT, "return document.getElementById('vm-web') !== null;");

        assertThat(browser.attributes("#vms tbody tr", "id")).containsExactly("vm-db", "vm-web");
        assertThat(browser.text("#vm-web [data-field=site]")).isEqualTo(VIRGINIA);
        assertThat(browser.text("#vm-web [data-field=state]")).isEqualTo("running");
        assertThat(browser.text("#vm-web [data-field=memory]")).isEqualTo("256.0 MiB");
        assertThat(browser.text("#vm-web [data-field=runtimes]")).isEqualTo("taiwan: inmigrate (incoming), virginia: running");
        assertThat(browser.text("#vm-web .disk[data-image=demo]")).isEqualTo("demo virginia, epoch 3 → taiwan");
        assertThat(browser.attributes("#vm-web .disk", "data-holder")).containsExactly(VIRGINIA);
        assertThat(browser.text("#vm-db [data-field=state]")).isEqualTo("unknown (site unreachable)");
        assertThat(browser.text("#vm-db .disk[data-image=gone]")).isEqualTo("gone image 'gone' does not exist");

        String inFlight = "#migrations-in-flight tr.migration-in-flight[data-vm=web] ";
        assertThat(browser.attributes("#migrations-in-flight tr.migration-in-flight", "data-id")).containsExactly("m3");
        assertThat(browser.attributes(inFlight.trim(), "data-stale")).containsExactly("false");
        assertThat(browser.text(inFlight + "[data-field=route]")).isEqualTo("virginia → taiwan");
        assertThat(browser.text(inFlight + "[data-field=phase]")).isEqualTo("precopy");
        assertThat(browser.text(inFlight + "[data-field=ram-sent]")).isEqualTo("75% of 256.0 MiB");
        assertThat(browser.text(inFlight + "[data-field=storage-backlog]")).isEqualTo("1.00 MiB");
        assertThat(browser.text(inFlight + "[data-field=elapsed]")).isEqualTo("12 s");
        assertThat(browser.text(inFlight + "[data-field=ensemble]")).isEqualTo("e1");

        assertThat(browser.attributes("#migration-history tr.migration-done", "data-id")).as("newest first").containsExactly("m2", "m1");
        assertThat(browser.attributes("#migration-history tr.migration-done", "data-outcome")).containsExactly("rolled_back", "completed");
        String m1 = "#migration-history tr[data-id=m1] ";
        assertThat(browser.text(m1 + "[data-field=downtime]")).isEqualTo("170.0 ms");
        assertThat(browser.text(m1 + "[data-field=handoff]")).isEqualTo("30.0 ms");
        assertThat(browser.text(m1 + "[data-field=ram]")).isEqualTo("300.0 MiB");
        assertThat(browser.text(m1 + "[data-field=requested-by]")).isEqualTo("scheduler:d-17");
        assertThat(browser.text("#migration-history tr[data-id=m2] [data-field=reason]")).isEqualTo("the destination died");
        assertThat(browser.text("#migration-history tr[data-id=m2] [data-field=downtime]")).isEqualTo("–");
        browser.screenshot(Path.of("target", "status-page-vms.png"));
    }

    @Test
    void showsEachApplicationWithItsVmsSitesAndNewestDecision() throws IOException {
        source.set(SampleCluster.applications(5_000));
        browser.await("the applications", TIMEOUT, "return document.getElementById('app-zk') !== null;");

        assertThat(browser.attributes("#applications tbody tr", "id")).containsExactly("app-web", "app-zk");
        assertThat(browser.attributes("#applications tr#app-zk", "data-policy")).containsExactly("ensemble");
        assertThat(browser.attributes("#applications tr#app-zk", "data-outcome")).containsExactly("move");
        assertThat(browser.attributes("#app-zk .app-vm", "data-site")).containsExactly(TAIWAN, TAIWAN, "");
        assertThat(browser.text("#app-zk [data-field=vms]")).isEqualTo("zk1 @ taiwan, zk2 @ taiwan, zk3 @ ?");
        assertThat(browser.text("#app-zk [data-field=leader]")).isEqualTo("zk1");
        assertThat(browser.text("#app-zk [data-field=reason]")).isEqualTo("a better plan");
        assertThat(browser.text("#app-web [data-field=outcome]")).isEqualTo("error");
        assertThat(browser.text("#app-web [data-field=when]")).matches("[56] s ago");
        assertThat(browser.text("#app-web [data-field=repeats]")).isEqualTo("2");

        assertThat(browser.attributes("#decisions tr.decision", "data-app")).as("newest first").containsExactly("web", "zk", "zk");
        assertThat(browser.attributes("#decisions tr.decision", "data-outcome")).containsExactly("error", "move", "stay");
        assertThat(browser.text("#decisions tr.decision[data-outcome=move] [data-field=moves]")).isEqualTo("zk1: virginia → taiwan, zk2: virginia → taiwan");
        assertThat(browser.text("#decisions tr.decision[data-outcome=move] [data-field=scores]")).isEqualTo("-1500 → -420.5");
        assertThat(browser.text("#decisions tr.decision[data-outcome=error] [data-field=scores]")).isEqualTo("-∞ → -∞");
        browser.screenshot(Path.of("target", "status-page-applications.png"));
    }

    @Test
    void aMigrationWhoseDriverStoppedReportingShowsAsStale() {
        source.set(SampleCluster.vms(90_000));
        browser.await("the stale migration", TIMEOUT, "return document.querySelector('tr.migration-in-flight.stale[data-vm=web]') !== null;");

        assertThat(browser.text("tr.migration-in-flight[data-vm=web] [data-field=phase]")).matches("precopy \\(stale: no report for 9[01] s\\)");
        assertThat(browser.attributes("tr.migration-in-flight[data-vm=web]", "data-stale")).containsExactly("true");

        source.set(new VmsStatus(0, List.of(), List.of(), List.of()));
        browser.await("no migration in flight", TIMEOUT, "return document.querySelectorAll('tr.migration-in-flight').length === 0;");
        assertThat(browser.attributes("#vms tbody tr", "id")).isEmpty();
    }

    @Test
    void drawsAnEmptyCluster() {
        source.set(ClusterStatus.getDefaultInstance(), List.of());
        browser.await("no sites", TIMEOUT, "return document.querySelectorAll('#sites tbody tr').length === 0;");
        assertThat(browser.attributes("#connection", "data-state")).containsExactly("live");
        assertThat(browser.attributes(".image", "data-image")).isEmpty();
        assertThat(browser.attributes("#rtt td", "data-from")).isEmpty();
        assertThat(browser.text("#lease-moves")).isEqualTo("none");
    }

    @Test
    void saysSoWhenTheControllerCannotReachZooKeeperOrStopsAnswering() {
        source.failWith(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "ZooKeeper cannot be reached"));
        browser.await("the controller's error", TIMEOUT, "return document.getElementById('connection').dataset.state === 'error';");
        assertThat(browser.text("#connection")).startsWith("the controller answers 503: ZooKeeper cannot be reached (last answer ");

        server.close();
        browser.await("the lost controller", TIMEOUT, "return document.getElementById('connection').dataset.state === 'lost';");
        assertThat(browser.text("#connection")).startsWith("the controller is not answering (last answer ");
        assertThat(browser.attributes("main", "class")).containsExactly("stale");
        assertThat(browser.attributes("#sites tbody tr", "data-site")).as("the last answer stays").containsExactly(VIRGINIA, TAIWAN);
    }

    private static List<String> colours(String selector) {
        List<String> colours = new ArrayList<>();
        browser.script("return [...document.querySelectorAll(arguments[0])].map(e => getComputedStyle(e).backgroundColor);", selector)
                .forEach(colour -> colours.add(colour.asText()));
        return colours;
    }
}
