package io.heliotrope.scheduler.qmp;

import com.fasterxml.jackson.databind.JsonNode;

import static java.util.Objects.requireNonNull;

/** What QEMU sends on a QMP socket, one JSON object each. */
public sealed interface QmpMessage {
    /** The first message of a connection, before {@code qmp_capabilities}. */
    record Greeting(String version) implements QmpMessage {}

    /** A command's success: its {@code return} value, not yet read into the command's reply type. */
    record Return(long id, JsonNode value) implements QmpMessage {
        public Return {
            requireNonNull(value, "value is null");
        }
    }

    /** A command's failure: QMP's error class (GenericError, CommandNotFound, ...) and description. */
    record Error(long id, String errorClass, String description) implements QmpMessage {}

    record Event(QmpEvent event) implements QmpMessage {
        public Event {
            requireNonNull(event, "event is null");
        }
    }
}
