package io.heliotrope.cli.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Which process listens on a TCP port, as Linux's /proc tells: the listening socket's
 * inode from {@code net/tcp} and {@code net/tcp6}, then the process with a descriptor
 * {@code socket:[INODE]}. Another user's processes show only to root; any answer is a
 * snapshot that may be stale by the time it is read.
 */
final class PortHolders {
    /** {@code st} of a listening socket in /proc/net/tcp. */
    private static final String LISTEN = "0A";

    private final Path proc;

    PortHolders(Path proc) {
        this.proc = requireNonNull(proc, "proc is null");
    }

    /** A process and its command line. */
    record Holder(long pid, List<String> commandLine) {
        Holder {
            commandLine = List.copyOf(commandLine);
        }
    }

    /** The process that listens on {@code port}, if /proc shows one. */
    Optional<Holder> find(int port) {
        Set<String> sockets = new HashSet<>();
        for (String table : List.of("tcp", "tcp6")) {
            try {
                for (long inode : listeningInodes(Files.readAllLines(proc.resolve("net").resolve(table)), port)) {
                    sockets.add("socket:[" + inode + "]");
                }
            } catch (IOException e) {
                // no IPv6, or no /proc: the other table may still tell
            }
        }
        if (sockets.isEmpty()) {
            return Optional.empty();
        }
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(proc, entry -> entry.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path process : processes) {
                if (holdsAny(process.resolve("fd"), sockets)) {
                    long pid = Long.parseLong(process.getFileName().toString());
                    return Optional.of(new Holder(pid, commandLine(process)));
                }
            }
        } catch (IOException e) {
            // /proc unreadable: the holder stays unknown
        }
        return Optional.empty();
    }

    /** The inodes of the sockets that listen on {@code port}, from the lines of /proc/net/tcp or tcp6 (header included). */
    static Set<Long> listeningInodes(List<String> table, int port) {
        Set<Long> inodes = new HashSet<>();
        for (String line : table.subList(Math.min(1, table.size()), table.size())) {
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
            String[] fields = line.trim().split("\\s+");
            if (fields.length < 10 || !fields[3].equals(LISTEN)) {
                continue;
            }
            String local = fields[1];
            int colon = local.lastIndexOf(':');
            if (colon >= 0 && Integer.parseInt(local.substring(colon + 1), 16) == port) {
                inodes.add(Long.parseLong(fields[9]));
            }
        }
        return inodes;
    }

    private static boolean holdsAny(Path descriptors, Set<String> sockets) {
        try (DirectoryStream<Path> links = Files.newDirectoryStream(descriptors)) {
            for (Path link : links) {
                try {
                    if (sockets.contains(Files.readSymbolicLink(link).toString())) {
                        return true;
                    }
                } catch (IOException e) {
                    // the descriptor closed meanwhile
                }
            }
        } catch (IOException e) {
            // another user's process, or one that exited meanwhile
        }
        return false;
    }

    /** The arguments in /proc/PID/cmdline, which separates them with NULs; empty when unreadable. */
    private static List<String> commandLine(Path process) {
        try {
            String raw = new String(Files.readAllBytes(process.resolve("cmdline")), StandardCharsets.UTF_8);
            return raw.isEmpty() ? List.of() : Arrays.asList(raw.split("\0"));
        } catch (IOException e) {
            return List.of();
        }
    }
}
