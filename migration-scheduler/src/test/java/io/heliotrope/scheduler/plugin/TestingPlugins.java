package io.heliotrope.scheduler.plugin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The plugins the tests load, compiled from these sources into jars of their own. */
final class TestingPlugins {
    /**
     * Policy {@code NAME}: one VM, f(p) = -sum of L(front end, p). Its {@code validate} loads
     * the class its parameter {@code probe} names, from inside the plugin, and refuses the
     * application with the {@link ClassNotFoundException} as cause when it cannot.
     */
    private static final String CLOSEST = """
            package example;

            import io.heliotrope.scheduler.spi.*;
            import java.util.ArrayList;
            import java.util.List;

            public final class Closest implements Policy<Load> {
                public String name() { return "NAME"; }
                public String description() { return new com.fasterxml.jackson.databind.ObjectMapper().toString(); }
                public Class<Load> workloadType() { return Load.class; }
                public Load smooth(List<TimedReport<Load>> reports) { return reports.get(reports.size() - 1).workload(); }

                public void validate(Application application) {
                    try {
                        Class.forName(application.parameters().get("probe"));
                    } catch (ClassNotFoundException e) {
                        throw new IllegalArgumentException(e);
                    }
                }

                public Scorer prepare(Application application, Load workload, RttMatrix rtt) {
                    int[] from = workload.sites().stream().mapToInt(rtt::indexOf).sorted().toArray();
                    return new Scorer() {
                        public double score(Plan plan) {
                            return explain(plan).score();
                        }

                        public Explanation explain(Plan plan) {
                            List<Explanation.Term> terms = new ArrayList<>();
                            long sum = 0;
                            for (int site : from) {
                                long micros = rtt.micros(site, plan.site(0));
                                terms.add(new Explanation.Term("L[" + rtt.name(site) + "]", micros, -micros));
                                sum += micros;
                            }
                            return new Explanation(-sum, terms);
                        }
                    };
                }
            }
            """;
    /** Host-side Jackson honours the annotation only because the plugin shares the host's. */
    private static final String LOAD = """
            package example;

            import com.fasterxml.jackson.annotation.JsonProperty;
            import io.heliotrope.scheduler.spi.Workload;
            import java.util.Set;

            public record Load(@JsonProperty("from") Set<String> sites) implements Workload {
            }
            """;
    /** A class of the plugin's own under the name of one of the host's. */
    private static final String OBJECT_MAPPER = """
            package com.fasterxml.jackson.databind;

            public final class ObjectMapper {
                public String toString() { return "the plugin's own ObjectMapper"; }
            }
            """;

    private TestingPlugins() {}

    /** A plugin jar offering {@code Closest} as policy {@code name}. */
    static Path closest(Path jar, String name) throws IOException {
        return TestingPluginJar.write(jar, Map.of(
                        "example.Closest", CLOSEST.replace("NAME", name),
                        "example.Load", LOAD,
                        "example.ClosestPlugin", plugin("ClosestPlugin", "List.of(new Closest())"),
                        "com.fasterxml.jackson.databind.ObjectMapper", OBJECT_MAPPER),
                List.of("example.ClosestPlugin"));
    }

    /**
     * A directory plugin: {@code plugin.jar} offers {@code closest} and {@code lib.jar} its
     * dependency, class {@code lib.Description}, whose text is the policy's description.
     */
    static Path withLibrary(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path lib = TestingPluginJar.write(dir.resolve("lib.jar"), Map.of("lib.Description", """
                        package lib;

                        public final class Description {
                            public String toString() { return "described by lib.jar"; }
                        }
                        """), List.of());
        TestingPluginJar.write(dir.resolve("plugin.jar"), Map.of(
                        "example.Closest", CLOSEST.replace("NAME", "closest")
                                .replace("com.fasterxml.jackson.databind.ObjectMapper", "lib.Description"),
                        "example.Load", LOAD,
                        "example.ClosestPlugin", plugin("ClosestPlugin", "List.of(new Closest())")),
                List.of("example.ClosestPlugin"), lib);
        return dir;
    }

    /** A plugin whose constructor or {@code policies()} throws. */
    static Path broken(Path jar, String constructor, String policies) throws IOException {
        return TestingPluginJar.write(jar, Map.of("example.Broken", """
                        package example;

                        import io.heliotrope.scheduler.spi.*;
                        import java.util.List;

                        public final class Broken implements Plugin {
                            public Broken() { CONSTRUCTOR }
                            public List<Policy<?>> policies() { POLICIES }
                        }
                        """.replace("CONSTRUCTOR", constructor).replace("POLICIES", policies)),
                List.of("example.Broken"));
    }

    /** A jar with a plugin class that no service file names. */
    static Path withoutService(Path jar) throws IOException {
        return TestingPluginJar.write(jar, Map.of("example.Unnamed", plugin("Unnamed", "List.of()")), List.of());
    }

    private static String plugin(String name, String policies) {
        return """
                package example;

                import io.heliotrope.scheduler.spi.*;
                import java.util.List;

                public final class NAME implements Plugin {
                    public List<Policy<?>> policies() { return POLICIES; }
                }
                """.replace("NAME", name).replace("POLICIES", policies);
    }
}
