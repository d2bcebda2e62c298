package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code helio completion bash} in a real bash: the README's one-liner registers it, and TAB completes commands and options. */
class HelioCompletionIT {
    /** What bash does on TAB: the words so far in COMP_WORDS, the last one being completed; prints what the function offers. */
    private static final String COMPLETE = "source \"$1\"; shift; COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); COMP_LINE=\"$*\"; "
            + "COMP_POINT=${#COMP_LINE}; _complete_helio 2>/dev/null; printf '%s\\n' \"${COMPREPLY[@]}\"";

    @Test
    void sourcingTheScriptRegistersItForHelio() {
        List<String> command = new ArrayList<>(List.of("bash", "-c", "source <(\"$@\") && complete -p helio", "bash"));
        command.addAll(Tools.helioCommand(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), "completion", "bash"));

        assertThat(Tools.run(Tools.DEFAULT_TIMEOUT, command).assertSuccess().stdout()).isEqualTo("complete -o default -F _complete_helio helio\n");
    }

    @Test
    void tabCompletesCommandsOptionsAndShells(@TempDir Path dir) throws IOException {
        Path script = dir.resolve("helio.bash");
        Files.writeString(script, Tools.helio("completion", "bash").assertSuccess().stdout());

        assertThat(complete(script, "helio", "im")).containsExactly("image");
        assertThat(complete(script, "bin/helio", "image", "cr")).containsExactly("create");
        assertThat(complete(script, "helio", "up", "--wan-")).containsExactlyInAnyOrder("--wan-rtt", "--wan-bandwidth");
        assertThat(complete(script, "helio", "serve", "--log")).containsExactly("--log-file");
        assertThat(complete(script, "helio", "completion", "")).containsExactly("bash", "zsh");
    }

    private static List<String> complete(Path script, String... words) {
        List<String> command = new ArrayList<>(List.of("bash", "-c", COMPLETE, "bash", script.toString()));
        command.addAll(List.of(words));
        return ok(command.toArray(String[]::new)).stdout().lines().toList();
    }
}
