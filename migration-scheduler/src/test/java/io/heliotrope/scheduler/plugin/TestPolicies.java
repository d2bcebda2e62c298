package io.heliotrope.scheduler.plugin;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.placement.ArrayPlan;
import io.heliotrope.scheduler.policy.TestingRttMatrix;
import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.Explanation;
import io.heliotrope.scheduler.spi.Explanation.Term;
import io.heliotrope.scheduler.spi.Plugin;
import io.heliotrope.scheduler.spi.Policy;
import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Scorer;
import io.heliotrope.scheduler.spi.TimedReport;
import io.heliotrope.scheduler.spi.Workload;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.heliotrope.error.ErrorCode.INVALID_ARGUMENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestPolicies {
    private static final Application WEB = new Application("web", List.of("web1"), -1, Map.of());
    /** Rows are the measuring site's: oregon measures 71 ms to virginia, virginia 70 ms back. */
    private static final RttMatrix RTT = new TestingRttMatrix(List.of("oregon", "taiwan", "virginia"), new long[][] {
            {1_000, 120_000, 71_000},
            {120_000, 1_000, 200_000},
            {70_000, 200_000, 1_000}});

    @TempDir
    static Path jars;
    @TempDir
    Path plugins;

    @BeforeAll
    static void buildPlugin() throws IOException {
        TestingPlugins.closest(jars.resolve("closest.jar"), "closest");
    }

    @Test
    void aLoadedPolicyScoresWithTheWorkloadTheHostsJacksonMapsOntoItsType() throws IOException {
        Files.copy(jars.resolve("closest.jar"), plugins.resolve("closest.jar"));
        try (Policies policies = Policies.load(List.of(), plugins)) {
            Scorer scorer = prepare(policies.policy("closest"), "{\"from\":[\"virginia\",\"oregon\"]}");

            assertThat(scorer.score(new ArrayPlan(new int[] {0}))).isEqualTo(-71_000.0);
            assertThat(scorer.score(new ArrayPlan(new int[] {1}))).isEqualTo(-320_000.0);
            assertThat(scorer.explain(new ArrayPlan(new int[] {2}))).isEqualTo(new Explanation(-72_000,
                    List.of(new Term("L[oregon]", 71_000, -71_000), new Term("L[virginia]", 1_000, -1_000))));
        }
    }

    @Test
    void listsBuiltInsAndPluginsByNameWithTheirSources() throws IOException {
        Files.copy(jars.resolve("closest.jar"), plugins.resolve("closest.jar"));
        TestingPlugins.closest(plugins.resolve("nearest.jar"), "nearest");
        Files.writeString(plugins.resolve("README"), "not a plugin: ignored");
        try (Policies policies = Policies.load(List.of(builtin("single-vm")), plugins)) {
            assertThat(policies.list()).containsExactly(
                    new InstalledPolicy("closest", "the plugin's own ObjectMapper", plugins.resolve("closest.jar").toString()),
                    new InstalledPolicy("nearest", "the plugin's own ObjectMapper", plugins.resolve("nearest.jar").toString()),
                    new InstalledPolicy("single-vm", "built in for the test", Policies.BUILT_IN));
        }
    }

    @Test
    void aDirectoryIsOnePluginMadeOfAllItsJars() throws IOException {
        TestingPlugins.withLibrary(plugins.resolve("nearby"));
        try (Policies policies = Policies.load(List.of(), plugins)) {
            assertThat(policies.list()).containsExactly(
                    new InstalledPolicy("closest", "described by lib.jar", plugins.resolve("nearby").toString()));
        }
    }

    @Test
    void aMissingDirectoryHoldsNoPlugins() throws IOException {
        try (Policies policies = Policies.load(List.of(builtin("single-vm")), plugins.resolve("missing"))) {
            assertThat(policies.list()).extracting(InstalledPolicy::name).containsExactly("single-vm");
        }
    }

    @Test
    void anUnknownPolicyIsRefusedWithTheKnownOnes() throws IOException {
        Files.copy(jars.resolve("closest.jar"), plugins.resolve("closest.jar"));
        try (Policies policies = Policies.load(List.of(builtin("single-vm"), builtin("ensemble")), plugins)) {
            assertThatThrownBy(() -> policies.policy("fastest"))
                    .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(INVALID_ARGUMENT))
                    .hasMessage("unknown policy 'fastest'; known: closest, ensemble, single-vm");
        }
    }

    @Test
    void twoPoliciesWithOneNameAreRefusedNamingBothSources() throws IOException {
        Files.copy(jars.resolve("closest.jar"), plugins.resolve("a.jar"));
        Files.copy(jars.resolve("closest.jar"), plugins.resolve("b.jar"));

        assertThatThrownBy(() -> Policies.load(List.of(), plugins))
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(INVALID_ARGUMENT))
                .hasMessage("policy 'closest' is offered twice: by " + plugins.resolve("a.jar") + " and by " + plugins.resolve("b.jar"));
        assertThatThrownBy(() -> Policies.load(List.of(builtin("closest")), plugins))
                .hasMessage("policy 'closest' is offered twice: by built-in and by " + plugins.resolve("a.jar"));
    }

    @Test
    void closingClosesThePluginsClassLoaders() throws IOException {
        Files.copy(jars.resolve("closest.jar"), plugins.resolve("closest.jar"));
        Policies policies = Policies.load(List.of(), plugins);
        ClassLoader loader = policies.policy("closest").getClass().getClassLoader();

        policies.close();

        assertThat(loader.getResource("example/Load.class")).isNull();
    }

    private static <W extends Workload> Scorer prepare(Policy<W> policy, String json) throws IOException {
        W workload = new ObjectMapper().readValue(json, policy.workloadType());
        assertThat(workload.sites()).isEqualTo(Set.of("virginia", "oregon"));
        return policy.prepare(WEB, policy.smooth(List.of(new TimedReport<>(Instant.EPOCH, workload))), RTT);
    }

    private static Plugin builtin(String name) {
        return () -> List.of(new TestingPolicy(name));
    }
}
