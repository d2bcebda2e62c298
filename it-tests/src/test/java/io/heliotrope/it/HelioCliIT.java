package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.heliotrope.it.Tools.helio;
import static org.assertj.core.api.Assertions.assertThat;

/** The {@code helio} command as scripts see it: exit codes, one-line messages, files. */
class HelioCliIT {
    private static final int USER_ERROR = 1;

    @RegisterExtension
    static final SiteExtension site = new SiteExtension();

    @Test
    void showingMissingImageIsAUserError() {
        assertUserError(site.get().image("show", "missing"), "helio: image 'missing' does not exist");
    }

    @Test
    void sizeThatIsNotWholeBlocksIsAUserError() {
        assertUserError(site.get().image("create", "odd", "--size", "1000"),
                "helio: invalid image size 1000: must be a positive multiple of 4096 bytes, at most 1 PiB");
    }

    @Test
    void creatingAnExistingImageIsAUserError() {
        site.get().createImage("twice", "4M");

        assertUserError(site.get().image("create", "twice", "--size", "8M"), "helio: image 'twice' already exists");
    }

    @Test
    void unreachableSiteIsAUserError() {
        Tools.Result result = helio("image", "ls", "--server", "127.0.0.1:1");

        assertOneLineUserError(result);
        assertThat(result.stderr()).startsWith("helio: cannot reach the site at 127.0.0.1:1 (from --server): ");
    }

    @Test
    void anUnreachableControllerIsAUserErrorAndNoReasonToTryASite() {
        String nowhere = "127.0.0.1:" + Ports.free(1)[0];

        Tools.Result result = helio(Map.of("HELIO_CONTROLLER", nowhere), "image", "ls");

        assertOneLineUserError(result);
        assertThat(result.stderr()).startsWith("helio: cannot reach the controller at " + nowhere + " (from HELIO_CONTROLLER): ");
    }

    @Test
    void removingAnAttachedImageIsRefused() {
        site.get().createImage("attached", "4M");

        try (ChildProcess client = ChildProcess.start("qemu-io", List.of("qemu-io", "-f", "raw", site.get().nbdUri("attached")))) {
            awaitConnections(1);
            Tools.Result refused = site.get().image("rm", "attached");
            assertOneLineUserError(refused);
            assertThat(refused.stderr()).contains("in use");
            assertThat(client.isAlive()).as("qemu-io still attached").isTrue();
        }

        awaitConnections(0);
        site.get().image("rm", "attached").assertSuccess();
        assertUserError(site.get().image("show", "attached"), "helio: image 'attached' does not exist");
    }

    @Test
    void importExportRoundTripKeepsContentAndHoles(@TempDir Path tmp) throws Exception {
        Path original = TestData.truncate(tmp.resolve("original.raw"), (4 << 20) + 1000);
        TestData.writeRandom(original, 0, 64 << 10);
        TestData.writeRandom(original, 2 << 20, 10_000);
        Path exported = tmp.resolve("exported.raw");

        site.get().image("import", original.toString(), "round-trip").assertSuccess();
        site.get().image("export", "round-trip", exported.toString()).assertSuccess();

        byte[] expected = Arrays.copyOf(Files.readAllBytes(original), (4 << 20) + 4096);
        assertThat(Files.readAllBytes(exported)).as("content, size rounded up to 4096").isEqualTo(expected);
        assertThat(site.get().image("show", "round-trip").assertSuccess().stdout()).contains("data blocks: 19 ");
        assertThat(Tools.allocatedBytes(exported)).as("exported file keeps the holes").isLessThan(1 << 20);
        Tools.Result again = site.get().image("export", "round-trip", exported.toString());
        assertOneLineUserError(again);
        assertThat(again.stderr()).contains("use --force");
    }

    @ParameterizedTest
    @ValueSource(strings = {"image create no-size", "image create bad-size --size abc", "image ls --bogus", "serve --nbd-port notaport"})
    void usageMistakesAreOneLineUserErrors(String command) {
        assertOneLineUserError(helio(command.split(" ")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "up", "serve", "status", "rtt", "image", "image create", "image ls", "image show", "image rm",
            "image resize", "image import", "image export"})
    void helpExitsZero(String subcommand) {
        String[] args = (subcommand + " --help").strip().split(" ");

        Tools.Result help = helio(args).assertSuccess();

        assertThat(help.stdout()).startsWith("Usage: helio " + subcommand);
    }

    private static void assertUserError(Tools.Result result, String message) {
        assertOneLineUserError(result);
        assertThat(result.stderr()).isEqualTo(message + "\n");
    }

    private static void assertOneLineUserError(Tools.Result result) {
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(USER_ERROR);
        assertThat(result.stderrLines()).as(result.toString()).singleElement().asString().startsWith("helio: ");
        assertThat(result.stdout()).as(result.toString()).isEmpty();
    }

    private static void awaitConnections(int count) {
        Await.until("the site counts " + count + " NBD connection(s)", Duration.ofSeconds(30),
                () -> site.get().metric("heliotrope_nbd_connections") == count);
    }
}
