package io.heliotrope.it;

import io.grpc.ManagedChannel;
import io.heliotrope.controller.app.ApplicationRegistry;
import io.heliotrope.controller.app.ZooKeeperElection;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperMetrics;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.proto.controller.v1.GetVmRequest;
import io.heliotrope.proto.controller.v1.VmServiceGrpc;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.Decision;
import io.heliotrope.proto.scheduler.v1.DecisionOutcome;
import io.heliotrope.proto.scheduler.v1.Move;
import io.heliotrope.scheduler.decision.Applications;
import io.heliotrope.scheduler.decision.Scheduler;
import io.heliotrope.scheduler.decision.SchedulerConfig;
import io.heliotrope.scheduler.decision.SchedulerMetrics;
import io.heliotrope.scheduler.migration.grpc.GrpcClusterCalls;
import io.heliotrope.scheduler.plugin.Policies;
import io.heliotrope.scheduler.policy.BuiltinPlugin;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scheduler's decisions against a real controller and ZooKeeper, its moves made by a
 * stub runner ({@link RecordingMover}): a workload that shifts between two regions moves a
 * single VM, and a 3-VM ensemble together, after it; a gain below the threshold moves nothing;
 * a flapping workload moves nothing more often than the dwell time allows. The scheduler runs
 * in this JVM on a ZooKeeper root of its own, so the controller's own scheduler sees none of
 * these applications; its rounds are run one by one.
 */
class SchedulerIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    // Two regions: virginia and oregon 60 ms apart, taiwan 75 and 100 ms away from them.
    private static final Map<String, Map<String, Long>> RTT = Map.of(
            "virginia", Map.of("oregon", 60_000L, "taiwan", 75_000L),
            "oregon", Map.of("virginia", 60_000L, "taiwan", 100_000L),
            "taiwan", Map.of("virginia", 75_000L, "oregon", 100_000L));

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1).withSites("oregon", "taiwan", "virginia");

    @TempDir
    static Path plugins;

    private static ZooKeeperStore zk;
    private static Policies policies;
    private static RecordingMover mover;
    private static Scheduler scheduler;
    private static Applications applications;

    @BeforeAll
    static void startScheduler() {
        ManagedChannel controller = cluster.controller(0).channel();
        SchedulerFixtures.reportRtt(controller, RTT);
        zk = ZooKeeperStore.connect(cluster.ensemble().connectString(), Duration.ofSeconds(5), new ZooKeeperMetrics(new SimpleMeterRegistry()));
        ZooKeeperLayout layout = new ZooKeeperLayout("/scheduler-it");
        ApplicationRegistry store = new ApplicationRegistry(zk, layout, Clock.systemUTC());
        GrpcClusterCalls state = new GrpcClusterCalls(controller, cluster.controller(0).target(), Duration.ofSeconds(30));
        policies = Policies.load(List.of(new BuiltinPlugin()), plugins);
        mover = new RecordingMover(controller);
        SchedulerConfig config = new SchedulerConfig(Duration.ofHours(1), Duration.ofMillis(1), null, null, null, plugins);
        scheduler = new Scheduler(config, store, policies, state, new ZooKeeperElection(zk, layout, "scheduler-it"), mover,
                new SchedulerMetrics(new SimpleMeterRegistry()), Clock.systemUTC());
        applications = new Applications(store, policies, state, scheduler.workloads(), Clock.systemUTC());
        Await.until("the scheduler is elected", TIMEOUT, () -> scheduler.status().getActive());
    }

    @AfterAll
    static void stopScheduler() throws Exception {
        try (Cleanup cleanup = new Cleanup()) {
            cleanup.add(zk::close);
            cleanup.add(policies::close);
            cleanup.add(scheduler::close);
        }
    }

    @Test
    void aSingleVmFollowsItsWorkloadFromOneRegionToTheOther() {
        createVms("virginia", "web");
        applications.create(Application.newBuilder().setName("web").setPolicy("single-vm").addVms("web").setDwellMillis(1).build());

        applications.report("web", "{\"frontEnds\":[{\"site\":\"taiwan\",\"rate\":100},{\"site\":\"virginia\",\"rate\":10}]}");
        Decision toTaiwan = round("web");
        assertThat(toTaiwan.getOutcome()).as(toTaiwan.toString()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_MOVE);
        assertThat(site("web")).isEqualTo("taiwan");

        // The window averages its reports: three at virginia outweigh the one at taiwan.
        for (int i = 0; i < 3; i++) {
            applications.report("web", "{\"frontEnds\":[{\"site\":\"virginia\",\"rate\":100}]}");
        }
        Decision back = round("web");
        assertThat(back.getOutcome()).as(back.toString()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_MOVE);
        assertThat(site("web")).isEqualTo("virginia");
        assertThat(applications.get("web").getDecisionsList()).extracting(Decision::getOutcome)
                .containsExactly(DecisionOutcome.DECISION_OUTCOME_MOVE, DecisionOutcome.DECISION_OUTCOME_MOVE);
    }

    @Test
    void anEnsembleMovesWholeAndTogetherToTheRegionThatWrites() {
        createVms("virginia", "zk1", "zk2", "zk3");
        applications.create(Application.newBuilder().setName("zk").setPolicy("ensemble").addVms("zk1").addVms("zk2").addVms("zk3")
                .setLeader("zk1").setDwellMillis(1).build());

        applications.report("zk", "{\"frontEnds\":[{\"site\":\"taiwan\",\"reads\":900,\"writes\":100},{\"site\":\"virginia\",\"reads\":90,\"writes\":10}]}");
        Decision decision = round("zk");

        assertThat(decision.getOutcome()).as(decision.toString()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_MOVE);
        assertThat(decision.getMovesList()).extracting(Move::getToSite).containsExactly("taiwan", "taiwan", "taiwan");
        assertThat(List.of(site("zk1"), site("zk2"), site("zk3"))).containsOnly("taiwan");
        assertThat(round("zk").getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_STAY);
    }

    @Test
    void aGainBelowTheThresholdMovesNothing() {
        createVms("virginia", "db");
        // At virginia the workload costs 60 * 75 ms + 40 * 1 ms = 4.54 s per second; at taiwan 60 * 1 ms + 40 * 75 ms = 3.06 s: a third less.
        applications.create(Application.newBuilder().setName("db").setPolicy("single-vm").addVms("db").setThresholdFraction(0.5).build());
        applications.report("db", "{\"frontEnds\":[{\"site\":\"taiwan\",\"rate\":60},{\"site\":\"virginia\",\"rate\":40}]}");

        Decision decision = round("db");

        assertThat(decision.getOutcome()).as(decision.toString()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_STAY);
        assertThat(decision.getBest().getSitesList()).containsExactly("taiwan");
        assertThat(decision.getReason()).isEqualTo("the best plan's gain is below the threshold");
        assertThat(decision.getBest().getScore()).isEqualTo(-3_060_000);
        assertThat(decision.getRequiredScore()).isEqualTo(-2_270_000);
        assertThat(site("db")).isEqualTo("virginia");
    }

    @Test
    void aFlappingWorkloadMovesTheVmNoMoreOftenThanItsDwellTime() {
        createVms("virginia", "flap");
        Duration dwell = Duration.ofSeconds(3);
        applications.create(Application.newBuilder().setName("flap").setPolicy("single-vm").addVms("flap").setDwellMillis(dwell.toMillis()).build());
        List<Instant> moves = new ArrayList<>();
        String wanted = "taiwan";
        int reported = report("flap", wanted, 1);
        Instant end = Instant.now().plusSeconds(10);
        while (Instant.now().isBefore(end)) {
            Decision decision = round("flap");
            if (decision.getOutcome() == DecisionOutcome.DECISION_OUTCOME_MOVE) {
                moves.add(Instant.ofEpochMilli(decision.getAtEpochMillis()));
                // The workload flips at once, each time outweighing every report before it.
                wanted = wanted.equals("taiwan") ? "virginia" : "taiwan";
                reported += report("flap", wanted, reported + 1);
            } else {
                assertThat(decision.getOutcome()).as(decision.toString()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_WAIT);
                assertThat(decision.getReason()).contains("flap moved ", "it stays 3s after a move (dwell)");
            }
        }
        assertThat(moves).as("moves %s", moves).hasSizeBetween(3, 4);
        for (int i = 1; i < moves.size(); i++) {
            assertThat(Duration.between(moves.get(i - 1), moves.get(i))).isGreaterThanOrEqualTo(dwell);
        }
    }

    private static Decision round(String application) {
        return scheduler.run("", false).stream().filter(decision -> decision.getApplication().equals(application)).findFirst().orElseThrow().getDecision();
    }

    private static int report(String application, String site, int times) {
        for (int i = 0; i < times; i++) {
            applications.report(application, "{\"frontEnds\":[{\"site\":\"" + site + "\",\"rate\":100}]}");
        }
        return times;
    }

    private static String site(String vm) {
        return VmServiceGrpc.newBlockingStub(cluster.controller(0).channel()).getVm(GetVmRequest.newBuilder().setName(vm).build()).getSite();
    }

    private static void createVms(String site, String... names) {
        SchedulerFixtures.createVms(cluster.controller(0).channel(), site, names);
    }
}
