package io.heliotrope.it;

import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.SiteHealth;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.heliotrope.it.Tools.helio;
import static org.assertj.core.api.Assertions.assertThat;

/** After {@code helio up}, every helio command finds its controller with no flag: the client configuration it wrote. */
class HelioUpClientIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void commandsAfterUpTalkToItsController(@TempDir Path dataDir, @TempDir Path configHome) throws Exception {
        Map<String, String> env = Map.of("XDG_CONFIG_HOME", configHome.toString());
        Path clientConfig = configHome.resolve("heliotrope/client.yaml");
        List<String> command = Tools.helioCommand(List.of("-Xmx1g"), "up", "--data-dir", dataDir.toString(),
                "--nbd-port", "0", "--grpc-port", "0", "--metrics-port", "0", "--controller-port", "0", "--status-port", "0");

        try (ChildProcess up = ChildProcess.start("helio-up", command, env)) {
            Await.until("helio up wrote " + clientConfig, TIMEOUT, () -> Files.exists(clientConfig) || !up.isAlive());
            assertThat(Files.readString(clientConfig)).as(up.output()).containsPattern("\\ncontroller: \"127\\.0\\.0\\.1:\\d+\"\\n");

            assertThat(helio(env, "image", "create", "foo", "--size", "64M").assertSuccess().stdout()).isEqualTo("created foo (64.0 MiB, proactive)\n");
            Await.until("the controller sees both sites up", TIMEOUT, () -> sitesUp(env) == 2);
            assertThat(helio(env, "image", "show", "demo").assertSuccess().stdout())
                    .contains("name:        demo\n", "home:        virginia\n")
                    .containsPattern("\\n  taiwan +\\d+ ").containsPattern("\\n  virginia +\\d+ ");
            assertThat(helio(env, "status").assertSuccess().stdout())
                    .contains(" (from " + clientConfig + ", written by helio up), at ")
                    .containsPattern("\\n  taiwan +up ").containsPattern("\\n  virginia +up ")
                    .containsPattern("\\n  foo +64\\.0 MiB +proactive ");
            assertThat(up.stop()).as("stopped within 20 s of SIGTERM; output:%n%s", up.output()).isTrue();
        }
    }

    private static long sitesUp(Map<String, String> env) {
        ClusterStatus status = JsonOutput.parse(helio(env, "status", "--json"), ClusterStatus.newBuilder());
        return status.getSitesList().stream().filter(SiteHealth::getUp).count();
    }
}
