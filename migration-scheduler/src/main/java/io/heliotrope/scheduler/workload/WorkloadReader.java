package io.heliotrope.scheduler.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.spi.Policy;
import io.heliotrope.scheduler.spi.Workload;

import java.util.stream.Collectors;

/**
 * Maps a workload report's JSON onto its policy's workload type (DESIGN.md section 7). A
 * report that does not map is refused with the field that failed and why: an unknown field,
 * a missing or mistyped one, or a value the type's constructor refused.
 */
public final class WorkloadReader {
    private final ObjectMapper mapper = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** The report as the policy's workload type, or {@code INVALID_ARGUMENT} naming the field. */
    public <W extends Workload> W read(Policy<W> policy, String json) {
        W workload;
        try {
            workload = mapper.readValue(json, policy.workloadType());
        } catch (JsonMappingException e) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "workload report for policy " + policy.name() + ": "
                    + field(e) + cause(e));
        } catch (JsonProcessingException e) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "workload report for policy " + policy.name()
                    + " is not JSON: " + e.getOriginalMessage());
        }
        if (workload == null) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "workload report for policy " + policy.name() + " is empty (null)");
        }
        return workload;
    }

    private static String field(JsonMappingException e) {
        String path = e.getPath().stream()
                .map(reference -> reference.getFieldName() != null ? "." + reference.getFieldName() : "[" + reference.getIndex() + "]")
                .collect(Collectors.joining());
        return path.isEmpty() ? "" : "field " + path.substring(path.startsWith(".") ? 1 : 0) + ": ";
    }

    private static String cause(JsonMappingException e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root instanceof IllegalArgumentException && root.getMessage() != null) {
            return root.getMessage();
        }
        String message = e.getOriginalMessage();
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
