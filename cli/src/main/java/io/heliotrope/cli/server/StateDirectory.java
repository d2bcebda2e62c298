package io.heliotrope.cli.server;

import java.nio.file.Path;

/** Where helio keeps what it writes by default: {@code $XDG_STATE_HOME/heliotrope}, else {@code ~/.local/state/heliotrope}. */
public final class StateDirectory {
    private StateDirectory() {}

    public static Path resolve(String name) {
        String state = System.getenv("XDG_STATE_HOME");
        Path base = state == null || state.isEmpty() ? Path.of(System.getProperty("user.home"), ".local", "state") : Path.of(state);
        return base.resolve("heliotrope").resolve(name);
    }
}
