package io.heliotrope.cli.image;

import io.heliotrope.cli.Helio;
import io.heliotrope.proto.controller.v1.PropagationMode;
import io.heliotrope.proto.controller.v1.PullMode;
import io.heliotrope.proto.controller.v1.ReplicationSettings;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

class TestReplicationOptions {
    @Test
    void onlyTheOptionsGivenAreSet() {
        ImageCommand.Set set = new ImageCommand.Set();
        new CommandLine(set).parseArgs("vm", "--mode", "on-demand", "--k", "0.5", "--bandwidth", "100M", "--transitions", "a:b=1", "--pull", "On");

        assertThat(set.replication.toProto()).isEqualTo(ReplicationSettings.newBuilder()
                .setMode(PropagationMode.PROPAGATION_MODE_ON_DEMAND)
                .setKFactor(0.5)
                .setBandwidthBytesPerSecond(100L << 20)
                .setTransitions(Transitions.parse("a:b=1"))
                .setPull(PullMode.PULL_MODE_ON)
                .build());
    }

    @Test
    void thePullAloneIsASettingAndSaysItsDefaultPerMode() {
        ImageCommand.Set set = new ImageCommand.Set();
        CommandLine command = new CommandLine(set);
        command.parseArgs("vm", "--pull", "off");

        assertThat(set.replication.any()).isTrue();
        assertThat(set.replication.toProto()).isEqualTo(ReplicationSettings.newBuilder().setPull(PullMode.PULL_MODE_OFF).build());
        assertThat(command.getUsageMessage().replaceAll("\\s+", " "))
                .contains("--pull=on|off Whether a site that opens the image for writing fetches the blocks it lacks")
                .contains("(default: on for proactive and sync, off for on-demand; a remote image is never pulled)");
    }

    @Test
    void aStandaloneSiteRefusesThemWithOneLineAndExitCodeOne() {
        StringWriter err = new StringWriter();
        CommandLine helio = Helio.commandLine();
        helio.setErr(new PrintWriter(err));

        int code = helio.execute("image", "create", "vm", "--size", "1M", "--mode", "sync", "--server", "127.0.0.1:1");

        assertThat(code).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("helio: 'image create': the site at 127.0.0.1:1 (from --server) keeps no replication settings; "
                + "a controller's catalog does" + System.lineSeparator());
    }

    @Test
    void aBadTableIsAUsageMistake() {
        StringWriter err = new StringWriter();
        CommandLine helio = Helio.commandLine();
        helio.setErr(new PrintWriter(err));

        assertThat(helio.execute("image", "set", "vm", "--transitions", "virginia")).isEqualTo(1);
        assertThat(err.toString()).startsWith("helio: Invalid value for option '--transitions': invalid transition 'virginia': use FROM:TO=P");
    }

    @Test
    void aPullOtherThanOnOrOffIsAUsageMistake() {
        StringWriter err = new StringWriter();
        CommandLine helio = Helio.commandLine();
        helio.setErr(new PrintWriter(err));

        assertThat(helio.execute("image", "create", "vm", "--size", "1M", "--pull", "later")).isEqualTo(1);
        assertThat(err.toString()).startsWith("helio: Invalid value for option '--pull': invalid pull 'later': use on or off");
    }
}
