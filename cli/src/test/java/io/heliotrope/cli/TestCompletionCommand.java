package io.heliotrope.cli;

import io.heliotrope.cli.print.CliErrors;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

class TestCompletionCommand {
    @Test
    void printsAScriptThatCompletesEverySubcommand() {
        StringWriter out = new StringWriter();
        CommandLine helio = Helio.commandLine();
        helio.setOut(new PrintWriter(out));

        assertThat(helio.execute("completion", "zsh")).isZero();

        assertThat(out.toString())
                .startsWith("#!/usr/bin/env bash")
                .contains("bashcompinit")
                .contains("local commands=\"up serve controller image vm app scheduler status rtt cert completion help\"")
                .contains("--wan-rtt", "--create-image", "--log-file", "--migration-ports", "--on-timeout", "--policy", "--dry-run", "--plugins",
                        "--tls-dir", "--role")
                .endsWith("complete -F _complete_helio -o default helio helio.sh helio.bash\n");
    }

    @Test
    void refusesAnotherShell() {
        StringWriter err = new StringWriter();
        CommandLine helio = Helio.commandLine();
        helio.setErr(new PrintWriter(err));

        assertThat(helio.execute("completion", "fish")).isEqualTo(CliErrors.USER_ERROR);
        assertThat(err.toString()).isEqualTo("helio: Invalid value for positional parameter at index 0 (SHELL): expected one of [bash, zsh] "
                + "(case-insensitive) but was 'fish' (see 'helio completion --help')" + System.lineSeparator());
    }
}
