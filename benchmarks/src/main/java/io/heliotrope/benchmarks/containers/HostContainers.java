package io.heliotrope.benchmarks.containers;

import static java.util.Objects.requireNonNull;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.Volume;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Server containers as this machine allows them (DESIGN.md section 10): host networking, a
 * local image that is never pulled, readiness from a log line, and no Ryuk: a container lives
 * until {@link #stop} removes it by id. With Ryuk off, Testcontainers removes at JVM exit every
 * container it started (a shutdown hook): a JVM that leaves them running ends with {@code halt}.
 */
public final class HostContainers {
    /** Set on every container started here: {@code docker ps -a --filter label=io.heliotrope.launcher}. */
    public static final String LABEL = "io.heliotrope.launcher";

    /** What Testcontainers must be told through the environment: it reads no other source for these. */
    static final Map<String, String> REQUIRED_ENV = Map.of(
            "TESTCONTAINERS_RYUK_DISABLED", "true",
            "TESTCONTAINERS_HOST_OVERRIDE", "localhost");

    private final DockerClient docker;

    public HostContainers(DockerClient docker) {
        this.docker = requireNonNull(docker, "docker is null");
    }

    /** Connects to the daemon at DOCKER_HOST, after checking the environment Testcontainers needs here. */
    public static HostContainers connect(Map<String, String> environment) {
        REQUIRED_ENV.forEach((name, value) -> {
            if (!value.equals(environment.get(name))) {
                throw new IllegalStateException(name + " must be " + value + " (benchmarks/docker/container.sh sets it)");
            }
        });
        String host = environment.get("DOCKER_HOST");
        if (host == null) {
            throw new IllegalStateException("DOCKER_HOST is not set: eval \"$(benchmarks/docker/dockerd.sh env)\"");
        }
        if (host.startsWith("unix://") && !Files.exists(Path.of(host.substring("unix://".length())))) {
            throw new IllegalStateException("no Docker daemon at " + host + ": benchmarks/docker/dockerd.sh start");
        }
        return new HostContainers(DockerClientFactory.instance().client());
    }

    /** Starts the container and returns its id once its ready line appeared; removes it when it does not. */
    public String start(ContainerSpec spec) {
        requireImage(spec.image());
        List<Bind> binds = spec.binds().stream()
                .map(bind -> new Bind(bind.hostPath(), new Volume(bind.containerPath())))
                .toList();
        @SuppressWarnings("resource") // it outlives this JVM: stop(id) removes it
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(spec.image()))
                .withNetworkMode("host")
                .withImagePullPolicy(image -> false)
                .withEnv(spec.env())
                .withLabels(Map.of(LABEL, "1"))
                .withCommand(spec.command().toArray(String[]::new))
                .withCreateContainerCmdModifier(create -> {
                    create.withName(spec.name());
                    create.getHostConfig().withBinds(binds);
                })
                .waitingFor(Wait.forLogMessage(".*(?:" + spec.readyLine().pattern() + ").*\\n?", 1)
                        .withStartupTimeout(spec.timeout()));
        try {
            container.start();
        } catch (RuntimeException e) {
            if (container.getContainerId() != null) {
                remove(container.getContainerId());
            }
            throw new IllegalStateException(spec.name() + ": " + spec.image() + " did not start: " + e.getMessage(), e);
        }
        return container.getContainerId();
    }

    /** docker stop (TERM, KILL after the grace) and rm; a container that is gone already is fine. */
    public void stop(String id, Duration grace) {
        try {
            docker.stopContainerCmd(id).withTimeout(Math.toIntExact(grace.toSeconds())).exec();
        } catch (NotFoundException e) {
            return;
        } catch (RuntimeException e) {
            // not running any more (304 Not Modified comes as an exception): rm it all the same
        }
        remove(id);
    }

    /** The container's output so far (and then as it comes, when following) until it ends or the caller closes the result. */
    public ResultCallback.Adapter<Frame> logs(String id, boolean follow, Consumer<Frame> frames) {
        return docker.logContainerCmd(id)
                .withStdOut(true)
                .withStdErr(true)
                .withFollowStream(follow)
                .exec(new ResultCallback.Adapter<>() {
                    @Override
                    public void onNext(Frame frame) {
                        frames.accept(frame);
                    }
                });
    }

    private void remove(String id) {
        try {
            docker.removeContainerCmd(id).withForce(true).withRemoveVolumes(true).exec();
        } catch (NotFoundException e) {
            // removed already
        }
    }

    private void requireImage(String image) {
        try {
            docker.inspectImageCmd(image).exec();
        } catch (NotFoundException e) {
            throw new IllegalStateException("image " + image + " is not on the daemon (nothing is pulled here):"
                    + " build it with benchmarks/docker/build-images.sh");
        }
    }
}
