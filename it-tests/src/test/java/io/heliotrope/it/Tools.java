package io.heliotrope.it;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs external commands (qemu-img, nbdinfo, mount, the helio CLI ...) to completion with a timeout. */
final class Tools {
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);
    /** Debian's tools first: a pyenv or /usr/local shim must not shadow them. */
    private static final String PATH = "/usr/sbin:/usr/bin:/sbin:/bin:" + System.getenv().getOrDefault("PATH", "");
    /** Options that make a short-lived CLI JVM start quickly. */
    private static final List<String> CLI_JVM_OPTIONS = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    private static final String HELIO_MAIN = "io.heliotrope.cli.Helio";
    private static final AtomicLong CONFIG_HOMES = new AtomicLong();

    private Tools() {}

    /** What a finished command did. */
    record Result(List<String> command, int exitCode, String stdout, String stderr) {
        Result assertSuccess() {
            assertThat(exitCode).as("exit code of %s", this).isZero();
            return this;
        }

        List<String> stderrLines() {
            return stderr.lines().toList();
        }

        @Override
        public String toString() {
            return "%s%n  exit code: %d%n  stdout:%n%s%n  stderr:%n%s".formatted(display(command), exitCode, stdout.strip(), stderr.strip());
        }
    }

    /**
     * What every child process gets on top of this JVM's environment: Debian's tools first,
     * the C locale, what helio writes by default (a controller's log) under target/state, and
     * an {@code XDG_CONFIG_HOME} of its own, empty: no client configuration that
     * {@code helio up} wrote, here or in another test, steers a helio command.
     */
    static Map<String, String> environment() {
        Path target = Path.of(System.getProperty("basedir", "."), "target").toAbsolutePath();
        Path configHome = target.resolve("it-config").resolve(ProcessHandle.current().pid() + "-" + CONFIG_HOMES.incrementAndGet());
        return Map.of("PATH", PATH, "LC_ALL", "C", "XDG_STATE_HOME", target.resolve("state").toString(), "XDG_CONFIG_HOME", configHome.toString());
    }

    /** Runs a command with stdin from /dev/null; fails if it does not finish within two minutes. */
    static Result run(String... command) {
        return run(DEFAULT_TIMEOUT, List.of(command));
    }

    /** Runs a command and asserts that it exits with 0, showing its output if not. */
    static Result ok(String... command) {
        return run(command).assertSuccess();
    }

    static Result run(Duration timeout, List<String> command) {
        return run(timeout, command, Map.of());
    }

    /** Runs a command with {@code env} added to (and overriding) {@link #environment()}. */
    static Result run(Duration timeout, List<String> command, Map<String, String> env) {
        Path stdout = null;
        Path stderr = null;
        Process process = null;
        try {
            stdout = Files.createTempFile("tool-", ".out");
            stderr = Files.createTempFile("tool-", ".err");
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(stdout.toFile())
                    .redirectError(stderr.toFile());
            builder.environment().putAll(environment());
            builder.environment().putAll(env);
            process = builder.start();
            boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                killTree(process);
                throw new AssertionError("timed out after " + timeout + ": "
                        + new Result(command, -1, text(stdout), text(stderr)));
            }
            return new Result(command, process.exitValue(), text(stdout), text(stderr));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + display(command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + display(command), e);
        } finally {
            if (process != null && process.isAlive()) {
                killTree(process);
            }
            deleteQuietly(stdout);
            deleteQuietly(stderr);
        }
    }

    /** Runs the helio CLI in a child JVM, as a user would run {@code bin/helio}. */
    static Result helio(String... args) {
        return helio(Map.of(), args);
    }

    /** Runs the helio CLI with {@code env} added to its environment, e.g. {@code HELIO_CONTROLLER}. */
    static Result helio(Map<String, String> env, String... args) {
        return run(DEFAULT_TIMEOUT, helioCommand(CLI_JVM_OPTIONS, args), env);
    }

    /** The command line of a helio child JVM, on this test's classpath. */
    static List<String> helioCommand(List<String> jvmOptions, String... args) {
        return javaCommand(jvmOptions, HELIO_MAIN, args);
    }

    /** The command line of a child JVM that runs {@code mainClass} on this test's classpath. */
    static List<String> javaCommand(List<String> jvmOptions, String mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(StableClasspath.VALUE);
        command.add(mainClass);
        command.addAll(Arrays.asList(args));
        return command;
    }

    /**
     * This test's classpath, with its SNAPSHOT jars copied once per test JVM to
     * {@code target/it-classpath}: an {@code mvn install} running elsewhere on the machine
     * must not swap the server's code between a kill and a restart.
     */
    private static final class StableClasspath {
        static final String VALUE = snapshot(System.getProperty("java.class.path"));

        private static String snapshot(String classpath) {
            Path copies = Path.of(System.getProperty("basedir", "."), "target", "it-classpath");
            try {
                Files.createDirectories(copies);
                List<String> entries = new ArrayList<>();
                for (String entry : classpath.split(File.pathSeparator)) {
                    Path path = Path.of(entry);
                    String name = path.getFileName().toString();
                    if (name.endsWith(".jar") && name.contains("-SNAPSHOT")) {
                        path = Files.copy(path, copies.resolve(name), StandardCopyOption.REPLACE_EXISTING);
                    }
                    entries.add(path.toString());
                }
                return String.join(File.pathSeparator, entries);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot copy the classpath to " + copies, e);
            }
        }
    }

    /** A command for messages: a helio child JVM shows as {@code helio ARGS}, without its long classpath. */
    static String display(List<String> command) {
        int main = command.indexOf(HELIO_MAIN);
        List<String> shown = main < 0 ? command : command.subList(main, command.size());
        return String.join(" ", shown).replace(HELIO_MAIN, "helio");
    }

    static String sha256(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 20];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** Bytes the file system really allocated for {@code file} ({@code st_blocks * 512}). */
    static long allocatedBytes(Path file) {
        String blocks = ok("stat", "-c", "%b", file.toString()).stdout().strip();
        return Long.parseLong(blocks) * 512;
    }

    /** Removes a directory and everything under it; nothing happens when it does not exist. */
    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    /** A tool's output as text; bytes that are not UTF-8 (a guest console's noise) become U+FFFD instead of failing. */
    private static String text(Path output) throws IOException {
        return new String(Files.readAllBytes(output), StandardCharsets.UTF_8);
    }

    private static void killTree(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // a leftover temp file is harmless
            }
        }
    }
}
