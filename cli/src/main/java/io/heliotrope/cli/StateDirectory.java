package io.heliotrope.cli;

import java.nio.file.Path;

/** Where helio keeps what it writes by default: {@code $XDG_STATE_HOME/heliotrope}, else {@code ~/.local/state/heliotrope}. */
final class StateDirectory {
    private StateDirectory() {}

    static Path resolve(String name) {
        String state = System.getenv("XDG_STATE_HOME");
        Path base = state == null || state.isEmpty() ? Path.of(System.getProperty("user.home"), ".local", "state") : Path.of(state);
        return base.resolve("heliotrope").resolve(name);
    }
}
