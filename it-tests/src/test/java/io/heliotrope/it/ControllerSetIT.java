package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.LocalTime;
import java.util.List;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static io.heliotrope.it.Tools.helio;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A site given three controllers moves to the next one when the one it uses dies, well within
 * the lease's TTL: a client writing all along sees no error, and every block it wrote verifies.
 */
class ControllerSetIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String IMAGE = "steady";
    /** The goal of issue #28: from a controller's death to the site's first answer from another one. */
    private static final Duration FAILOVER_GOAL = Duration.ofSeconds(2);
    /** The site's line when its calls move: its time, the controller left, the one its calls go to now. */
    private static final Pattern MOVED = Pattern.compile("(\\d{2}:\\d{2}:\\d{2}\\.\\d{3}) WARN +ControllerChannels - site site-a: controller at (\\S+) "
            + "stopped answering; calls go to controller at (\\S+) now");

    /** A short lease: a site that did not move in time would refuse I/O within 5 s of a death. */
    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(3, "--lease-ttl", "6s");

    @Test
    void writesGoOnWhileTheControllersInUseDie() throws Exception {
        String controllers = String.join(",", IntStream.range(0, 3).mapToObj(i -> cluster.controller(i).target()).toList());
        try (TestingSite site = TestingSite.start("--site", "site-a", "--controller", controllers, "--checkpoint-interval", "1s")) {
            helio("image", "create", IMAGE, "--size", "64M", "--controller", controllers).assertSuccess();
            // 60 MiB at 4 MiB/s: 15 s of writes, across both deaths.
            VerifiedWrites writes = new VerifiedWrites(site.nbdUri(IMAGE), "60m", "4m");
            Duration first;
            Duration second;
            try (ChildProcess fio = writes.start()) {
                awaitCheckpoint();
                first = killTheOneInUse(site);
                awaitCheckpoint();
                assertThat(fio.isAlive()).as("fio still writes when the second controller dies; its output:%n%s", fio.output()).isTrue();
                second = killTheOneInUse(site);
                awaitCheckpoint();
                String output = VerifiedWrites.awaitSuccess(fio, Duration.ofMinutes(2));
                System.out.printf("ControllerSetIT: from a controller's death to the site's first answer from the next: %d ms, then %d ms%n"
                        + "what the client saw (fio):%n%s%n", first.toMillis(), second.toMillis(), output);
            }
            writes.verifyAgain();
            assertThat(site.log()).as("site log").doesNotContain("refusing I/O").doesNotContain("fenced").doesNotContain("orphaned");
            assertThat(site.metric("heliotrope_controller_failovers_total")).isGreaterThanOrEqualTo(2.0);
            assertThat(first).as("first failover").isLessThan(FAILOVER_GOAL);
            assertThat(second).as("second failover").isLessThan(FAILOVER_GOAL);
        }
    }

    /** Waits until the site's next checkpoint is committed, as a controller still running reads the image. */
    private static void awaitCheckpoint() {
        ControllerClient controller = cluster.client(IntStream.range(0, 3).filter(i -> cluster.controller(i).isRunning()).max().orElseThrow());
        long metaSeq = controller.status(IMAGE).getMetaSeq();
        Await.until("a checkpoint of the writes after metaSeq " + metaSeq, TIMEOUT, () -> controller.status(IMAGE).getMetaSeq() > metaSeq);
    }

    /**
     * Kills the controller the site uses now (the first of its list, or the last it moved to)
     * with SIGKILL, and waits until the site says its calls go to another one; returns the time
     * from the kill to the answer that made it say so (the time of its log line).
     */
    private static Duration killTheOneInUse(TestingSite site) {
        List<MatchResult> before = moves(site);
        String inUse = before.isEmpty() ? cluster.controller(0).target() : before.get(before.size() - 1).group(3);
        int dying = IntStream.range(0, 3).filter(i -> cluster.controller(i).target().equals(inUse)).findFirst().orElseThrow();
        LocalTime killed = LocalTime.now();
        cluster.controller(dying).kill9();
        Await.until("the site moved from " + cluster.controller(dying).name(), TIMEOUT,
                () -> moves(site).stream().skip(before.size()).anyMatch(move -> move.group(2).equals(inUse)));
        MatchResult move = moves(site).stream().skip(before.size()).filter(result -> result.group(2).equals(inUse)).findFirst().orElseThrow();
        Duration took = Duration.between(killed, LocalTime.parse(move.group(1)));
        return took.isNegative() ? took.plusDays(1) : took;
    }

    /** Every move of the site's calls to another controller, in order. */
    private static List<MatchResult> moves(TestingSite site) {
        return MOVED.matcher(site.log()).results().toList();
    }
}
