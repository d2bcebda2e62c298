package io.heliotrope.cli.server;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class TestLogging {
    private static final Logger OURS = LoggerFactory.getLogger("io.heliotrope.storage.Example");
    private static final Logger THEIRS = LoggerFactory.getLogger("org.apache.zookeeper.Example");
    /** Shares our prefix as text, not as a package. */
    private static final Logger LOOKALIKE = LoggerFactory.getLogger("io.heliotropex.Example");
    private static final java.util.logging.Logger JUL = java.util.logging.Logger.getLogger("io.grpc.Example");

    private final ByteArrayOutputStream console = new ByteArrayOutputStream();
    private PrintStream stderr;

    @BeforeEach
    void captureConsole() {
        stderr = System.err;
        System.setErr(new PrintStream(console, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreTestLogging() throws Exception {
        System.setErr(stderr);
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        new ContextInitializer(context).autoConfig();
        SLF4JBridgeHandler.uninstall();
    }

    @Test
    void serversShowOurEventsAndTheLibrariesWarningsAndFileEverything(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("logs").resolve("site-a.log");
        Logging.consoleAndFile(file);

        OURS.debug("ours at debug");
        OURS.info("ours at info");
        THEIRS.info("theirs at info");
        THEIRS.warn("theirs at warn");
        LOOKALIKE.info("lookalike at info");
        JUL.fine("jul at fine");
        JUL.info("jul at info");
        JUL.warning("jul at warning");

        assertThat(console.toString(StandardCharsets.UTF_8))
                .contains("INFO  Example - ours at info", "WARN  Example - theirs at warn", "WARN  Example - jul at warning")
                .doesNotContain("ours at debug", "theirs at info", "lookalike at info", "jul at info", "jul at fine");
        assertThat(Files.readString(file))
                .contains("DEBUG [main] io.heliotrope.storage.Example - ours at debug", "INFO  [main] io.heliotrope.storage.Example - ours at info",
                        "INFO  [main] org.apache.zookeeper.Example - theirs at info", "WARN  [main] org.apache.zookeeper.Example - theirs at warn",
                        "INFO  [main] io.heliotropex.Example - lookalike at info",
                        "INFO  [main] io.grpc.Example - jul at info", "WARN  [main] io.grpc.Example - jul at warning")
                .doesNotContain("jul at fine");
    }

    @Test
    void commandsThatExitShowOnlyWarnings() {
        Logging.console();

        OURS.info("ours at info");
        OURS.warn("ours at warn");
        THEIRS.info("theirs at info");
        THEIRS.error("theirs at error");
        JUL.info("jul at info");

        assertThat(console.toString(StandardCharsets.UTF_8))
                .contains("WARN  Example - ours at warn", "ERROR Example - theirs at error")
                .doesNotContain("ours at info", "theirs at info", "jul at info");
    }

    @Test
    void logFileRollsOverBySizeAndKeepsFourOldOnes(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("helio-up.log");
        Logging.consoleAndFile(file, 1024);

        // The size is looked at every 100 ms: log at a slow pace, until a rollover has dropped the oldest file.
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String firstOfOldest = null;
        for (int line = 0; ; line++) {
            THEIRS.info("line {} {}", line, "x".repeat(100));
            LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
            Path oldest = Path.of(file + ".4");
            if (Files.exists(oldest)) {
                String first = Files.readAllLines(oldest).get(0);
                if (firstOfOldest == null) {
                    firstOfOldest = first;
                } else if (!first.equals(firstOfOldest)) {
                    break;
                }
            }
            assertThat(System.nanoTime() - deadline).as("rolled over five times within 30 s").isNegative();
        }

        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(path -> path.getFileName().toString()).sorted())
                    .containsExactly("helio-up.log", "helio-up.log.1", "helio-up.log.2", "helio-up.log.3", "helio-up.log.4");
        }
        assertThat(console.size()).as("bytes of the libraries' INFO on the console").isZero();
    }
}
