package io.heliotrope.cli.server;

import io.heliotrope.cli.Helio;
import io.heliotrope.storage.server.SiteConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class TestSiteOptions {
    @Test
    void theSchedulersSettingsComeFromTheCommandLine() {
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("--data-dir", "data", "--vm-memory", "64G", "--intra-site-rtt", "250us");

        SiteConfig config = serve.site.load(Path.of("unused"));

        assertThat(config.vmMemoryBytes()).isEqualTo(64L << 30);
        assertThat(config.intraSiteRtt()).isEqualTo(Duration.ofNanos(250_000));
    }

    @Test
    void withoutThemThereIsNoLimitAndOneMillisecond() {
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("--data-dir", "data");

        SiteConfig config = serve.site.load(Path.of("unused"));

        assertThat(config.vmMemoryBytes()).isZero();
        assertThat(config.intraSiteRtt()).isEqualTo(Duration.ofMillis(1));
    }

    @Test
    void serveHelpNamesBoth() {
        String help = Helio.commandLine().getSubcommands().get("serve").getUsageMessage();

        assertThat(help).contains("--vm-memory=SIZE", "no limit", "--intra-site-rtt=DURATION", "(default: 1ms)");
    }
}
