package io.heliotrope.scheduler.qmp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;

/**
 * The one translation between QMP's JSON and our records: a command with its id to the
 * bytes of one line, one received line to a {@link QmpMessage}, a {@code return} value to
 * the command's reply type. Stateless and thread-safe; framing is {@link QmpFrameDecoder}'s.
 */
public final class QmpCodec {
    private final ObjectMapper mapper = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    public byte[] encode(long id, QmpCommand<?> command) {
        ObjectNode message = mapper.createObjectNode().put("execute", command.execute());
        if (command.arguments() != null) {
            message.set("arguments", mapper.valueToTree(command.arguments()));
        }
        message.put("id", id);
        return (message + "\r\n").getBytes(StandardCharsets.UTF_8);
    }

    /** Reads one message; a line that is no QMP message fails with {@link IllegalArgumentException}. */
    public QmpMessage decode(String line) {
        JsonNode node;
        try {
            node = mapper.readTree(line);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + line, e);
        }
        if (node.has("return")) {
            return new QmpMessage.Return(node.path("id").asLong(-1), node.get("return"));
        }
        if (node.has("error")) {
            JsonNode error = node.get("error");
            return new QmpMessage.Error(node.path("id").asLong(-1), error.path("class").asText(), error.path("desc").asText());
        }
        if (node.has("event")) {
            return new QmpMessage.Event(event(node));
        }
        if (node.has("QMP")) {
            JsonNode qemu = node.path("QMP").path("version").path("qemu");
            return new QmpMessage.Greeting(qemu.path("major").asInt() + "." + qemu.path("minor").asInt() + "." + qemu.path("micro").asInt());
        }
        throw new IllegalArgumentException("not a QMP message: " + line);
    }

    public <R> R read(JsonNode value, Class<R> type) {
        try {
            return mapper.treeToValue(value, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot read " + value + " as " + type.getSimpleName(), e);
        }
    }

    private static QmpEvent event(JsonNode node) {
        JsonNode timestamp = node.path("timestamp");
        long micros = timestamp.path("seconds").asLong() * 1_000_000 + timestamp.path("microseconds").asLong();
        JsonNode data = node.path("data");
        String name = node.get("event").asText();
        return switch (name) {
            case "STOP" -> new QmpEvent.Stop(micros);
            case "RESUME" -> new QmpEvent.Resume(micros);
            case "MIGRATION" -> new QmpEvent.Migration(micros, data.path("status").asText());
            case "SHUTDOWN" -> new QmpEvent.Shutdown(micros, data.path("guest").asBoolean(), data.path("reason").asText());
            default -> new QmpEvent.Other(micros, name);
        };
    }
}
