package io.heliotrope.controller.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Debian's headless {@code chromium}, driven by its {@code chromedriver} over the W3C
 * WebDriver HTTP API, with a new, empty profile. Tests ask the page with JavaScript run
 * in it, and wait on conditions written the same way. Closing ends the session, stops
 * chromedriver and whatever it left, and removes the profile.
 */
public final class TestingBrowser implements AutoCloseable {
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final int DRIVER_STARTS = 3;
    private static final Pattern STARTED = Pattern.compile("started successfully on port (\\d+)");
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final int WIDTH = 1280;
    /** Without these, chromium's own background connections are refused here and slow it down. */
    private static final List<String> CHROMIUM_OPTIONS = List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--window-size=" + WIDTH + ",900");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path directory;
    private final Process driver;
    private final HttpClient http = HttpClient.newHttpClient();
    private final String session;

    private TestingBrowser(Path directory) throws IOException, InterruptedException {
        this.directory = directory;
        Path log = directory.resolve("chromedriver.log");
        Process started = null;
        int port = 0;
        // chromedriver picks its port before it binds it, so another process may take it
        // meanwhile ("IPv4 port not available. Exiting"): that start is tried again.
        for (int attempt = 1; port == 0; attempt++) {
            started = new ProcessBuilder(CHROMEDRIVER.toString(), "--port=0")
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            port = awaitPort(started, log, attempt == DRIVER_STARTS);
        }
        driver = started;
        try {
            String base = "http://127.0.0.1:" + port + "/session";
            ObjectNode capabilities = JSON.createObjectNode();
            List<String> arguments = new ArrayList<>(CHROMIUM_OPTIONS);
            arguments.add("--user-data-dir=" + directory.resolve("profile"));
            capabilities.putObject("capabilities").putObject("alwaysMatch").putObject("goog:chromeOptions").putPOJO("args", arguments);
            session = base + "/" + send("POST", base, capabilities).get("sessionId").asText();
        } catch (RuntimeException | AssertionError e) {
            driver.destroyForcibly();
            throw e;
        }
    }

    /** Starts chromedriver and a browser; fails with what to install when they are missing. */
    public static TestingBrowser start() {
        if (!Files.isExecutable(CHROMEDRIVER)) {
            throw new AssertionError(CHROMEDRIVER + " is missing: apt-get install chromium chromium-driver (bin/test installs them)");
        }
        Path directory;
        try {
            directory = Files.createTempDirectory("heliotrope-browser-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            return new TestingBrowser(directory);
        } catch (IOException e) {
            deleteRecursively(directory);
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            deleteRecursively(directory);
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (RuntimeException | AssertionError e) {
            deleteRecursively(directory);
            throw e;
        }
    }

    /** Loads the page at {@code url} and waits until it has loaded. */
    public void open(String url) {
        send("POST", session + "/url", JSON.createObjectNode().put("url", url));
    }

    /** Runs {@code body} as a function in the page ({@code arguments[i]} are the {@code args}) and returns what it returns. */
    public JsonNode script(String body, Object... args) {
        ObjectNode request = JSON.createObjectNode().put("script", body);
        request.putPOJO("args", List.of(args));
        return send("POST", session + "/execute/sync", request);
    }

    /** The text of the first element {@code selector} matches, or null when none does. */
    public String text(String selector) {
        JsonNode text = script("const e = document.querySelector(arguments[0]); return e === null ? null : e.textContent;", selector);
        return text.isNull() ? null : text.asText();
    }

    /** The attribute {@code name} of each element {@code selector} matches, in document order. */
    public List<String> attributes(String selector, String name) {
        JsonNode values = script("return [...document.querySelectorAll(arguments[0])].map(e => e.getAttribute(arguments[1]));", selector, name);
        List<String> result = new ArrayList<>();
        values.forEach(value -> result.add(value.isNull() ? null : value.asText()));
        return result;
    }

    /** Waits until the JavaScript {@code condition} (a function body) returns true; fails with the page's text when it does not in time. */
    public void await(String description, Duration timeout, String condition, Object... args) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!script(condition, args).asBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + description + "; the page shows:\n"
                        + script("return document.body.innerText;").asText());
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** Writes a PNG of the whole page, beyond the window's height (Chrome DevTools' Page.captureScreenshot). */
    public void screenshot(Path png) throws IOException {
        JsonNode size = script("return [document.documentElement.scrollWidth, document.documentElement.scrollHeight];");
        ObjectNode command = JSON.createObjectNode().put("cmd", "Page.captureScreenshot");
        ObjectNode params = command.putObject("params").put("format", "png").put("captureBeyondViewport", true);
        params.putObject("clip").put("x", 0).put("y", 0).put("width", size.get(0).asInt()).put("height", size.get(1).asInt()).put("scale", 1);
        byte[] image = Base64.getDecoder().decode(send("POST", session + "/goog/cdp/execute", command).get("data").asText());
        Files.createDirectories(png.toAbsolutePath().getParent());
        Files.write(png, image);
    }

    @Override
    public void close() {
        List<ProcessHandle> processes = new ArrayList<>(driver.descendants().toList());
        try {
            send("DELETE", session, null);
        } finally {
            processes.add(driver.toHandle());
            processes.forEach(ProcessHandle::destroy);
            try {
                if (!driver.waitFor(10, TimeUnit.SECONDS)) {
                    driver.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            deleteRecursively(directory);
        }
    }

    private JsonNode send(String method, String url, ObjectNode body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(CALL_TIMEOUT);
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body.toString()));
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode value = JSON.readTree(response.body()).get("value");
            if (response.statusCode() != 200) {
                throw new AssertionError("WebDriver " + method + " " + url + " failed: " + value.path("error").asText()
                        + ": " + value.path("message").asText());
            }
            return value;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The port {@code driver} listens on; 0 when it exited without listening and {@code last} is false. */
    private static int awaitPort(Process driver, Path log, boolean last) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            Matcher started = STARTED.matcher(Files.readString(log));
            if (started.find()) {
                return Integer.parseInt(started.group(1));
            }
            if (!driver.isAlive()) {
                if (!last && Files.readString(log).contains("port not available")) {
                    return 0;
                }
                break;
            }
            Thread.sleep(POLL.toMillis());
        }
        driver.destroyForcibly();
        throw new AssertionError("chromedriver did not start; it printed:\n" + Files.readString(log));
    }

    private static void deleteRecursively(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
