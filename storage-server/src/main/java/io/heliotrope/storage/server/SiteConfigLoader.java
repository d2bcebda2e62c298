package io.heliotrope.storage.server;

import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.std.FromStringDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Loads a {@link SiteConfig} from YAML (unknown keys are an error), with overrides
 * from the command line taking precedence over the file.
 */
public final class SiteConfigLoader {
    private static final ObjectMapper MAPPER = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
            .addModule(new SimpleModule().addDeserializer(Duration.class, new FromStringDeserializer<>(Duration.class) {
                @Override
                protected Duration _deserialize(String value, DeserializationContext context) {
                    return Durations.parse(value);
                }
            }))
            .build();

    private SiteConfigLoader() {}

    /**
     * @param file a YAML file, or null for defaults only
     * @param overrides field name to value; null values are ignored
     */
    public static SiteConfig load(Path file, Map<String, Object> overrides) {
        try {
            ObjectNode tree = file == null ? MAPPER.createObjectNode() : asObject(MAPPER.readTree(file.toFile()), file);
            if (tree.get("controller") instanceof ArrayNode controllers) {
                // A YAML list of controllers is the comma-separated one of the command line.
                List<String> addresses = new ArrayList<>();
                controllers.forEach(address -> addresses.add(address.asText()));
                tree.put("controller", String.join(",", addresses));
            }
            if (tree.get("tls") instanceof BooleanNode tls) {
                // YAML 1.1 reads a bare on or off as a boolean.
                tree.put("tls", tls.booleanValue() ? "on" : "off");
            }
            overrides.forEach((key, value) -> {
                if (value != null) {
                    tree.set(key, MAPPER.valueToTree(value instanceof Path || value instanceof Duration ? text(value) : value));
                }
            });
            return MAPPER.treeToValue(tree, SiteConfig.class);
        } catch (IOException | IllegalArgumentException e) {
            String where = file == null ? "command line" : file.toString();
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "invalid site configuration (" + where + "): " + HeliotropeException.rootMessage(e), e);
        }
    }

    private static String text(Object value) {
        return value instanceof Duration duration ? duration.toNanos() / 1000 + "us" : value.toString();
    }

    private static ObjectNode asObject(JsonNode node, Path file) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            return MAPPER.createObjectNode();
        }
        if (!(node instanceof ObjectNode object)) {
            throw new IllegalArgumentException(file + " must hold a YAML mapping");
        }
        return object;
    }
}
