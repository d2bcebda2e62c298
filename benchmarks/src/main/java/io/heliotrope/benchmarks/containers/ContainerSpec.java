package io.heliotrope.benchmarks.containers;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One server container on the host's network: what {@link HostContainers#start} runs.
 *
 * @param image a local image (never pulled), e.g. {@code heliotrope/zookeeper:3.9.5}
 * @param name the container's name, unique on the daemon
 * @param binds host directories (or files) mounted into the container, read-write
 * @param env the container's environment (the server images read {@code JVM_OPTS})
 * @param readyLine the container is ready once a line of its output contains a match
 * @param timeout how long to wait for that line
 * @param command the arguments of the image's entrypoint
 */
public record ContainerSpec(
        String image,
        String name,
        List<Bind> binds,
        Map<String, String> env,
        Pattern readyLine,
        Duration timeout,
        List<String> command) {
    public ContainerSpec {
        requireNonNull(image, "image is null");
        requireNonNull(name, "name is null");
        binds = List.copyOf(binds);
        env = Map.copyOf(env);
        requireNonNull(readyLine, "readyLine is null");
        requireNonNull(timeout, "timeout is null");
        command = List.copyOf(command);
    }

    /** An absolute host path mounted at an absolute container path ({@code HOST:CONTAINER}, or {@code PATH} for the same path). */
    public record Bind(String hostPath, String containerPath) {
        public Bind {
            if (!hostPath.startsWith("/") || !containerPath.startsWith("/")) {
                throw new IllegalArgumentException("a bind mount needs two absolute paths: " + hostPath + ":" + containerPath);
            }
        }

        static Bind parse(String value) {
            int colon = value.indexOf(':');
            return colon < 0 ? new Bind(value, value) : new Bind(value.substring(0, colon), value.substring(colon + 1));
        }
    }
}
