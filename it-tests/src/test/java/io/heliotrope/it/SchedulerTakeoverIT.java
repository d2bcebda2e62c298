package io.heliotrope.it;

import io.heliotrope.proto.controller.v1.MigrationInFlight;
import io.heliotrope.proto.controller.v1.ReportMigrationRequest;
import io.heliotrope.proto.controller.v1.VmServiceGrpc;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.Decision;
import io.heliotrope.proto.scheduler.v1.DecisionOutcome;
import io.heliotrope.proto.scheduler.v1.GetApplicationRequest;
import io.heliotrope.proto.scheduler.v1.GetSchedulerStatusRequest;
import io.heliotrope.proto.scheduler.v1.SchedulerServiceGrpc;
import io.heliotrope.proto.scheduler.v1.SchedulerStatus;
import io.heliotrope.proto.scheduler.v1.Term;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.heliotrope.it.Tools.helio;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two controllers, each with its scheduler, on one ZooKeeper with a 5 s session timeout: one
 * decides, the other stands by, and takes over when the first is killed, waiting for the
 * migration the first left in flight. The example plugin, built by bin/test and installed in
 * the controllers' plugins directory, decides like a built-in.
 */
class SchedulerTakeoverIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Path PLUGINS = ExamplePlugin.installed();

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(2, "--zookeeper-session-timeout", "5s", "--scheduler-period", "1s",
            "--plugins", PLUGINS.toString()).withSites("taiwan", "virginia");

    private static Map<String, String> env;

    @BeforeAll
    static void measureRtt() {
        env = Map.of("HELIO_CONTROLLER", cluster.controller(0).target());
        SchedulerFixtures.reportRtt(cluster.controller(0).channel(), Map.of("taiwan", Map.of("virginia", 75_000L), "virginia", Map.of("taiwan", 75_000L)));
    }

    @Test
    void theSecondSchedulerWaitsWhileTheFirstLivesAndTakesOverWhenItIsKilledWaitingForTheMigrationInFlight() {
        Await.until("one scheduler is elected", TIMEOUT, () -> status(0).getActive() != status(1).getActive());
        int active = status(0).getActive() ? 0 : 1;
        int standing = 1 - active;
        assertThat(status(standing).getLeader()).isEqualTo(cluster.controller(active).target());
        SchedulerFixtures.createVms(cluster.controller(0).channel(), "virginia", "held");
        // The first scheduler's driver reported a migration of the VM; then its controller dies.
        VmServiceGrpc.newBlockingStub(cluster.controller(standing).channel()).reportMigration(ReportMigrationRequest.newBuilder().setName("held")
                .setInFlight(MigrationInFlight.newBuilder().setId("m-1").setFromSite("virginia").setToSite("taiwan").setPhase("precopy")
                        .setStartedEpochMillis(System.currentTimeMillis()).setReportedEpochMillis(System.currentTimeMillis()))
                .build());
        helio(env, "app", "create", "held", "--policy", "single-vm", "--vms", "held").assertSuccess();
        helio(env, "app", "report", "held", "{\"frontEnds\":[{\"site\":\"taiwan\",\"rate\":50}]}").assertSuccess();

        cluster.controller(active).kill9();

        Await.until("the standing-by scheduler takes over after the session of the first expires", TIMEOUT, () -> status(standing).getActive());
        assertThat(status(standing).getLeader()).isEqualTo(cluster.controller(standing).target());
        long tookOver = System.currentTimeMillis();
        Await.until("the new scheduler decides about held", TIMEOUT, () -> {
            Decision last = last(standing, "held");
            return last != null && Math.max(last.getAtEpochMillis(), last.getLastEpochMillis()) > tookOver;
        });
        Decision decision = last(standing, "held");
        assertThat(decision.getOutcome()).as(decision.toString()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_WAIT);
        assertThat(decision.getReason()).isEqualTo("a migration of held is in flight; the next decision waits for it to end");
    }

    @Test
    void aPluginInTheControllersPluginsDirectoryDecidesLikeABuiltIn() {
        assertThat(helio(env, "scheduler", "policies").assertSuccess().stdout())
                .containsPattern("(?m)^minimax-latency +" + PLUGINS.resolve(ExamplePlugin.JAR) + " +");
        SchedulerFixtures.createVms(cluster.controller(0).channel(), "virginia", "edge");
        helio(env, "app", "create", "edge", "--policy", "minimax-latency", "--vms", "edge").assertSuccess();
        helio(env, "app", "report", "edge", "{\"frontEnds\":[{\"site\":\"taiwan\",\"rate\":10}]}").assertSuccess();

        // The active scheduler decides every second: the plugin's plan moves edge; the move fails (no site runs VMs here), and says so.
        Await.until("the scheduler decides with the plugin, and the migration it starts fails", TIMEOUT, () -> {
            Decision last = last(0, "edge");
            return last != null && last.getOutcome() == DecisionOutcome.DECISION_OUTCOME_MIGRATION_FAILED;
        });
        Application edge = SchedulerServiceGrpc.newBlockingStub(cluster.controller(0).channel()).getApplication(GetApplicationRequest.newBuilder().setName("edge").build());
        Decision moved = edge.getDecisionsList().stream().filter(decision -> decision.getOutcome() == DecisionOutcome.DECISION_OUTCOME_MOVE).findFirst()
                .orElseThrow(() -> new AssertionError("no move among " + edge.getDecisionsList()));
        assertThat(moved.getPolicy()).isEqualTo("minimax-latency");
        assertThat(moved.getBest().getSitesList()).containsExactly("taiwan");
        assertThat(moved.getCurrent().getTermsList()).extracting(Term::getName).contains("L[taiwan]");
        assertThat(edge.getDecisions(edge.getDecisionsCount() - 1).getReason())
                .startsWith("the migration of edge to taiwan failed: ").contains("; taiwan is excluded for 30m (cooldown 5m)");
        assertThat(helio(env, "scheduler", "run", "--dry-run", "--policy", "minimax-latency").assertSuccess().stdout())
                .containsPattern("(?m)^edge +wait \\(dry run\\) .* a migration of edge to taiwan failed .* ago; the application is left alone for 5m after one \\(cooldown\\)$");
    }

    private static SchedulerStatus status(int controller) {
        return SchedulerServiceGrpc.newBlockingStub(cluster.controller(controller).channel()).getSchedulerStatus(GetSchedulerStatusRequest.getDefaultInstance());
    }

    private static Decision last(int controller, String application) {
        List<Decision> decisions = SchedulerServiceGrpc.newBlockingStub(cluster.controller(controller).channel())
                .getApplication(GetApplicationRequest.newBuilder().setName(application).build()).getDecisionsList();
        return decisions.isEmpty() ? null : decisions.get(decisions.size() - 1);
    }

    /** The example plugin project's jar, as bin/test builds it, copied into a plugins directory of its own. */
    static final class ExamplePlugin {
        static final String JAR = "placement-plugin-example.jar";

        private ExamplePlugin() {}

        static Path installed() {
            try (var built = Files.list(Path.of("..", "examples", "placement-plugin", "target"))) {
                Path jar = built.filter(file -> file.getFileName().toString().endsWith(".jar")).findFirst()
                        .orElseThrow(() -> new IllegalStateException("build the example plugin first: bin/test does"));
                // Under target/, as the rest of what the tests leave: the next build's clean removes it.
                Path plugins = Files.createDirectories(Path.of("target")).resolve("helio-plugins-" + ProcessHandle.current().pid());
                Files.createDirectories(plugins);
                Files.copy(jar, plugins.resolve(JAR), StandardCopyOption.REPLACE_EXISTING);
                return plugins.toAbsolutePath();
            } catch (IOException e) {
                throw new UncheckedIOException("the example plugin is not built (examples/placement-plugin/target): bin/test builds it", e);
            }
        }
    }
}
