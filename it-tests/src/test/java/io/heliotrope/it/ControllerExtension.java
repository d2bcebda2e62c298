package io.heliotrope.it;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import io.heliotrope.controller.zookeeper.SecretFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A 3-node {@link ZooKeeperEnsemble} and {@code count} {@link TestingController}s on it
 * for a test class, sharing one ZooKeeper secret ({@link #secretFile()}: every znode under
 * /heliotrope is theirs alone): started before its first test, with the sites named by
 * {@link #withSites} registered, closed after its last, their logs printed when a test
 * fails. Before each test, whatever an earlier test killed is started again.
 * <pre>{@code
 * @RegisterExtension
 * static final ControllerExtension cluster = new ControllerExtension(2, "--lease-ttl", "2s").withSites("site-a", "site-b");
 * }</pre>
 */
final class ControllerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback, TestWatcher {
    private final int count;
    private final List<String> options;
    private final List<String> sites = new ArrayList<>();
    private final List<TestingController> controllers = new ArrayList<>();
    private ZooKeeperEnsemble ensemble;
    private Path secretDirectory;

    ControllerExtension(int count, String... options) {
        this.count = count;
        this.options = List.of(options);
    }

    /** Sites to register through the first controller once the controllers have started, before the class's first test. */
    ControllerExtension withSites(String... names) {
        sites.addAll(List.of(names));
        return this;
    }

    ZooKeeperEnsemble ensemble() {
        return requireNonNull(ensemble, "ensemble is not started");
    }

    /** The controllers' ZooKeeper secret, as {@code --zookeeper-auth-file} takes it. */
    Path secretFile() {
        return requireNonNull(secretDirectory, "controllers are not started").resolve("zookeeper-secret");
    }

    TestingController controller(int index) {
        return controllers.get(index);
    }

    ControllerClient client(int index) {
        return new ControllerClient(controller(index));
    }

    /** Waits until no site holds {@code image}: the last writer's final flush reached the controllers. */
    void awaitClosed(String image, Duration timeout) {
        ControllerClient client = client(0);
        Await.until(image + " closed everywhere", timeout, () -> client.status(image).getLease().getHolder().isEmpty());
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        try {
            secretDirectory = Files.createTempDirectory("heliotrope-secret-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        SecretFile.createIfMissing(secretFile());
        List<String> secured = new ArrayList<>(List.of("--zookeeper-auth-file", secretFile().toString()));
        secured.addAll(options);
        ensemble = ZooKeeperEnsemble.start(3);
        for (int i = 0; i < count; i++) {
            controllers.add(TestingController.start("controller-" + i, ensemble.connectString(), secured));
        }
        sites.forEach(client(0)::registerSite);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        ensemble.restartKilled();
        for (TestingController controller : controllers) {
            if (!controller.isRunning()) {
                controller.restart();
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try (Cleanup cleanup = new Cleanup()) {
            if (ensemble != null) {
                cleanup.add(ensemble::close);
            }
            controllers.forEach(controller -> cleanup.add(controller::close));
            if (secretDirectory != null) {
                Path directory = secretDirectory;
                cleanup.add(() -> Tools.deleteRecursively(directory));
            }
        } finally {
            controllers.clear();
            ensemble = null;
            secretDirectory = null;
        }
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        for (TestingController controller : controllers) {
            System.err.printf("==== %s failed; log of %s ====%n%s==== end of %s log ====%n",
                    context.getDisplayName(), controller.name(), controller.log(), controller.name());
        }
        if (ensemble != null) {
            System.err.printf("==== %s failed; log of the ZooKeeper ensemble ====%n%s==== end of ZooKeeper log ====%n",
                    context.getDisplayName(), ensemble.log());
        }
    }
}
