package io.heliotrope.cli;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

@Command(name = "completion",
        mixinStandardHelpOptions = true,
        description = {"Print the script that completes helio's commands and options in bash or zsh.",
                "One script serves both shells: in zsh it loads bashcompinit. Load it with",
                "  source <(helio completion bash)    in this shell, ~/.bashrc or ~/.zshrc",
                "  helio completion bash > /etc/bash_completion.d/helio    for every bash user"})
final class CompletionCommand implements Callable<Integer> {
    /** Lowercase: the names a user types, and that completion offers. */
    enum Shell { bash, zsh }

    /** Checked, so that another shell's name is refused; one script serves both. */
    @Parameters(arity = "0..1", paramLabel = "SHELL", defaultValue = "bash", description = "bash or zsh (default: ${DEFAULT-VALUE}).")
    Shell shell;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getOut().print(AutoComplete.bash(spec.root().name(), spec.root().commandLine()));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
