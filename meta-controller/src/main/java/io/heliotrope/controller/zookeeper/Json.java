package io.heliotrope.controller.zookeeper;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.io.IOException;

/**
 * The small records in ZooKeeper are JSON, so that an operator can read them with
 * {@code zkCli get}. Unknown fields are ignored: a newer controller may add some.
 */
public final class Json {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private Json() {}

    public static byte[] write(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value + " as JSON", e);
        }
    }

    /** Reads {@code length} bytes at {@code offset}; {@code path} names the source in the error. */
    public static <T> T read(byte[] data, int offset, int length, Class<T> type, String path) {
        try {
            return MAPPER.readValue(data, offset, length, type);
        } catch (IOException e) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE,
                    "corrupt " + type.getSimpleName() + " in " + path + ": " + HeliotropeException.rootMessage(e), e);
        }
    }

    public static <T> T read(byte[] data, Class<T> type, String path) {
        return read(data, 0, data.length, type, path);
    }
}
