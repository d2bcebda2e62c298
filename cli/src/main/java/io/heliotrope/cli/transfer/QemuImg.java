package io.heliotrope.cli.transfer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.heliotrope.cli.print.Progress;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code qemu-img}, which reads and writes the image formats other than raw: its
 * {@code info} for a file's virtual size, its {@code convert} to copy between a file
 * and an image's NBD export, with its progress report ({@code -p}) read into ours.
 */
final class QemuImg {
    static final String PACKAGE = "qemu-utils";
    private static final Pattern PERCENT = Pattern.compile("\\((\\d+(?:\\.\\d+)?)/100%\\)");

    private final Path executable;

    private QemuImg(Path executable) {
        this.executable = executable;
    }

    /** qemu-img from the PATH; a user error that names its package when it is not there. */
    static QemuImg find(String purpose) {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path candidate = Path.of(directory.isEmpty() ? "." : directory, "qemu-img");
            if (Files.isExecutable(candidate)) {
                return new QemuImg(candidate);
            }
        }
        throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                purpose + " needs qemu-img, which is not installed (Debian package " + PACKAGE + ")");
    }

    /** The size of the disk that {@code file} holds in {@code format}. */
    long virtualSize(Path file, ImageFormat format) throws IOException, InterruptedException {
        Process process = start(List.of("info", "--output=json", "-f", format.qemuName(), file.toString()));
        CompletableFuture<String> errors = errors(process);
        byte[] json;
        try (InputStream out = process.getInputStream()) {
            json = out.readAllBytes();
        }
        checkExit(process, errors);
        JsonNode size = new ObjectMapper().readTree(json).get("virtual-size");
        if (size == null || !size.canConvertToLong()) {
            throw new IOException("qemu-img info gave no virtual size for " + file);
        }
        return size.asLong();
    }

    /**
     * A {@code qemu-img convert} with these arguments (after {@code convert -p}), which
     * reports its progress as a share of {@code total} bytes.
     */
    Copy convert(List<String> arguments, Progress progress) {
        List<String> command = new ArrayList<>(List.of("convert", "-p"));
        command.addAll(arguments);
        return new Convert(command, progress);
    }

    private final class Convert implements Copy {
        private final List<String> arguments;
        private final Progress progress;
        private volatile Process process;
        private volatile boolean aborted;

        Convert(List<String> arguments, Progress progress) {
            this.arguments = arguments;
            this.progress = progress;
        }

        @Override
        public long run() throws IOException, InterruptedException {
            Process started = start(arguments);
            process = started;
            if (aborted) {
                started.destroy();
            }
            CompletableFuture<String> errors = errors(started);
            try (Reader out = new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8)) {
                readProgress(out);
            }
            checkExit(started, errors);
            return -1;
        }

        /** qemu-img redraws "    (12.34/100%)" with a carriage return before each. */
        private void readProgress(Reader out) throws IOException {
            StringBuilder line = new StringBuilder();
            for (int c; (c = out.read()) >= 0; ) {
                if (c != '\r' && c != '\n') {
                    line.append((char) c);
                    continue;
                }
                Matcher matcher = PERCENT.matcher(line);
                if (matcher.find()) {
                    progress.set((long) (Double.parseDouble(matcher.group(1)) / 100 * progress.total()));
                }
                line.setLength(0);
            }
        }

        @Override
        public void abort() {
            aborted = true;
            Process started = process;
            if (started != null) {
                started.destroy();
            }
        }
    }

    private Process start(List<String> arguments) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(executable.toString());
        command.addAll(arguments);
        return new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    }

    /** What the process writes to stderr, read as it comes so that it never blocks on a full pipe. */
    private static CompletableFuture<String> errors(Process process) {
        CompletableFuture<String> errors = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (InputStream err = process.getErrorStream()) {
                errors.complete(new String(err.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                errors.completeExceptionally(e);
            }
        }, "qemu-img-stderr");
        reader.setDaemon(true);
        reader.start();
        return errors;
    }

    /** A failure with qemu-img's own last line ("qemu-img: Could not open ...") when it exited with an error. */
    private static void checkExit(Process process, CompletableFuture<String> errors) throws InterruptedException {
        int exit = process.waitFor();
        if (exit == 0) {
            return;
        }
        String message = errors.join().lines().filter(line -> !line.isBlank()).reduce((first, second) -> second)
                .orElse("qemu-img exited with status " + exit);
        throw new HeliotropeException(message.contains("No space left on device") ? ErrorCode.NO_SPACE : ErrorCode.INVALID_ARGUMENT,
                message.startsWith("qemu-img") ? message : "qemu-img: " + message);
    }
}
