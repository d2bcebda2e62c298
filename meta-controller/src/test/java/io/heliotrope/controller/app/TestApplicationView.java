package io.heliotrope.controller.app;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.vm.VmService;
import io.heliotrope.controller.vm.VmSpec;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.Decision;
import io.heliotrope.proto.scheduler.v1.DecisionOutcome;
import io.heliotrope.proto.scheduler.v1.Move;
import io.heliotrope.proto.scheduler.v1.PlanScore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;

import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;

/** The applications as the status port shows them: VMs at their sites, the newest decision of each, the newest decisions of all. */
@ExtendWith(ZooKeeperExtension.class)
class TestApplicationView {
    private final TestingClock clock = new TestingClock(1_700_000_000_000L);
    private final ExecutorService executor = Executors.newFixedThreadPool(2, task -> new Thread(task, "test-applications"));
    private TestingController controller;
    private ApplicationRegistry applications;
    private VmService vms;
    private ApplicationView view;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) {
        controller = TestingController.withImage(zooKeeper, clock, "disk", "virginia", "taiwan");
        ZooKeeperLayout layout = new ZooKeeperLayout(controller.root());
        applications = new ApplicationRegistry(controller.zk(), layout, clock);
        vms = new VmService(controller.zk(), layout, clock, executor, controller.metrics().migrations());
        view = new ApplicationView(applications, vms, executor, clock);
    }

    @AfterEach
    void stop() {
        executor.shutdownNow();
        controller.close();
    }

    @Test
    void eachApplicationShowsItsVmsWhereTheyAreAndItsNewestDecision() {
        await(vms.create(new VmSpec("zk1", 64L << 20, 1, List.of("disk"), "", "", "", ""), "taiwan"));
        applications.create(Application.newBuilder().setName("zk").setPolicy("ensemble").addAllVms(List.of("zk1", "zk2")).setLeader("zk1").build());
        applications.create(Application.newBuilder().setName("idle").setPolicy("single-vm").addVms("zk1").build());
        applications.record("zk", decision(1_000, DecisionOutcome.DECISION_OUTCOME_STAY, "nothing clears the threshold"));
        applications.record("zk", decision(2_000, DecisionOutcome.DECISION_OUTCOME_MOVE, "a better plan").toBuilder()
                .addMoves(Move.newBuilder().setVm("zk1").setFromSite("virginia").setToSite("taiwan")).build());

        ApplicationsStatus status = await(view.statusAsync());

        assertThat(status.generatedEpochMillis()).isEqualTo(clock.millis());
        assertThat(status.applications()).extracting(ApplicationsStatus.ApplicationState::name).containsExactly("idle", "zk");
        ApplicationsStatus.ApplicationState zk = status.applications().get(1);
        assertThat(zk.vms()).containsExactly(new ApplicationsStatus.VmSite("zk1", "taiwan"), new ApplicationsStatus.VmSite("zk2", ""));
        assertThat(zk.leader()).isEqualTo("zk1");
        assertThat(zk.decisions()).isEqualTo(2);
        assertThat(zk.last()).isEqualTo(new ApplicationsStatus.DecisionState("zk", "move", "a better plan", 2_000, 2_000, 1, -100, -40,
                List.of(new ApplicationsStatus.Move("zk1", "virginia", "taiwan")), false));
        assertThat(status.applications().get(0).last()).as("no decision yet").isNull();
    }

    @Test
    void theNewestTwentyDecisionsOfAllApplicationsComeFirst() {
        for (String name : List.of("a", "b")) {
            applications.create(Application.newBuilder().setName(name).setPolicy("single-vm").addVms(name + "1").build());
        }
        IntStream.range(0, 15).forEach(i -> {
            applications.record("a", decision(10_000 + 2 * i, DecisionOutcome.DECISION_OUTCOME_WAIT, "round " + i));
            applications.record("b", decision(10_001 + 2 * i, DecisionOutcome.DECISION_OUTCOME_ERROR, "round " + i));
        });

        List<ApplicationsStatus.DecisionState> decisions = await(view.statusAsync()).decisions();

        assertThat(decisions).hasSize(ApplicationView.HISTORY);
        assertThat(decisions.get(0)).extracting(ApplicationsStatus.DecisionState::application, ApplicationsStatus.DecisionState::outcome,
                ApplicationsStatus.DecisionState::lastEpochMillis).containsExactly("b", "error", 10_029L);
        assertThat(decisions).extracting(ApplicationsStatus.DecisionState::lastEpochMillis).isSortedAccordingTo((x, y) -> Long.compare(y, x));
        assertThat(decisions.get(19).lastEpochMillis()).isEqualTo(10_010);
    }

    private static Decision decision(long at, DecisionOutcome outcome, String reason) {
        return Decision.newBuilder().setAtEpochMillis(at).setOutcome(outcome).setReason(reason)
                .setCurrent(PlanScore.newBuilder().addSites("virginia").setScore(-100))
                .setBest(PlanScore.newBuilder().addSites("taiwan").setScore(-40))
                .build();
    }
}
