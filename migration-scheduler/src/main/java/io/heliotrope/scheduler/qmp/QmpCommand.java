package io.heliotrope.scheduler.qmp;

/**
 * A QMP command: its name on the wire ({@code execute}), its arguments (an object Jackson
 * writes, or null for none) and the type its {@code return} value is read as. The commands
 * we send are in {@link QmpCommands}.
 */
public interface QmpCommand<R> {
    String execute();

    Class<R> replyType();

    default Object arguments() {
        return null;
    }
}
