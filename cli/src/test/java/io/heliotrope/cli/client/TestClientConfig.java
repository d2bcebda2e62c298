package io.heliotrope.cli.client;

import io.heliotrope.error.HeliotropeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestClientConfig {
    private static final Path HOME = Path.of("/home/ada");

    @Test
    void livesUnderXdgConfigHomeWhenItIsAbsoluteElseUnderDotConfig() {
        assertThat(ClientConfig.path(Map.of("XDG_CONFIG_HOME", "/etc/xdg-ada"), HOME)).isEqualTo(Path.of("/etc/xdg-ada/heliotrope/client.yaml"));
        assertThat(ClientConfig.path(Map.of("XDG_CONFIG_HOME", "relative"), HOME)).isEqualTo(Path.of("/home/ada/.config/heliotrope/client.yaml"));
        assertThat(ClientConfig.path(Map.of(), HOME)).isEqualTo(Path.of("/home/ada/.config/heliotrope/client.yaml"));
    }

    @Test
    void whatIsWrittenReadsBackAndReplacesTheEarlierFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("heliotrope/client.yaml");
        new ClientConfig("127.0.0.1:7400").write(file);
        new ClientConfig("10.0.0.1:7400").write(file);

        assertThat(ClientConfig.read(file)).contains(new ClientConfig("10.0.0.1:7400"));
        assertThat(Files.readString(file)).endsWith("controller: \"10.0.0.1:7400\"\n");
        assertThat(dir.resolve("heliotrope")).isDirectoryContaining(path -> path.equals(file)).isDirectoryNotContaining("glob:**.tmp");
    }

    @Test
    void noFileIsNoConfig(@TempDir Path dir) {
        assertThat(ClientConfig.read(dir.resolve("client.yaml"))).isEmpty();
    }

    @Test
    void aFileThatIsNotValidIsTheUsersToFix(@TempDir Path dir) throws Exception {
        Path unknownKey = Files.writeString(dir.resolve("unknown.yaml"), "controler: 127.0.0.1:7400\n");
        Path empty = Files.writeString(dir.resolve("empty.yaml"), "# nothing\n");
        Path blank = Files.writeString(dir.resolve("blank.yaml"), "controller: \"\"\n");

        assertThatThrownBy(() -> ClientConfig.read(unknownKey)).isInstanceOf(HeliotropeException.class)
                .hasMessageStartingWith("invalid client configuration " + unknownKey + ": Unrecognized field \"controler\"");
        assertThatThrownBy(() -> ClientConfig.read(empty)).isInstanceOf(HeliotropeException.class)
                .hasMessageStartingWith("invalid client configuration " + empty + ": No content to map");
        assertThatThrownBy(() -> ClientConfig.read(blank)).isInstanceOf(HeliotropeException.class)
                .hasMessage("invalid client configuration " + blank + ": it names no controller (controller: HOST:PORT)");
    }
}
