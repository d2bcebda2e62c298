package io.heliotrope.scheduler.runner;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

/**
 * A site's VM runner.
 *
 * @param site this site's name
 * @param stateDir where each VM's directory is ({@code vms/NAME/}: pidfile, sockets, logs)
 * @param qemuBinary the QEMU to run, on the PATH or a path (default {@code qemu-system-x86_64})
 * @param bindHost where incoming migrations listen (default 127.0.0.1)
 * @param migrationPorts the local ports incoming migrations listen on, one migration each
 * @param peerMigrationAddresses per peer site, the address through which this site reaches
 *         each of that peer's migration ports: entry i is the link in front of the peer's port i
 * @param resumeDeadline how long a destination waits, after its migration completed, for this
 *         site to activate its disks before it gives up resuming (default 10 s)
 */
public record RunnerConfig(
        String site,
        Path stateDir,
        String qemuBinary,
        String bindHost,
        List<Integer> migrationPorts,
        Map<String, List<InetSocketAddress>> peerMigrationAddresses,
        Duration resumeDeadline) {
    public static final String DEFAULT_QEMU = "qemu-system-x86_64";

    public RunnerConfig {
        requireNonNull(site, "site is null");
        requireNonNull(stateDir, "stateDir is null");
        qemuBinary = requireNonNullElse(qemuBinary, DEFAULT_QEMU);
        bindHost = requireNonNullElse(bindHost, "127.0.0.1");
        migrationPorts = List.copyOf(requireNonNullElse(migrationPorts, List.of()));
        peerMigrationAddresses = Map.copyOf(requireNonNullElse(peerMigrationAddresses, Map.of()));
        resumeDeadline = requireNonNullElse(resumeDeadline, Duration.ofSeconds(10));
    }
}
