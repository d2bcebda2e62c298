package io.heliotrope.controller.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.heliotrope.controller.app.ApplicationsStatus;
import io.heliotrope.controller.cluster.VmsStatus;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.error.HttpErrors;
import io.heliotrope.http.GetRequest;
import io.heliotrope.http.Reply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The JSON API of the status port: {@code /api/status[?image=NAME]} and
 * {@code /api/locality?image=NAME[&regions=N]} answer with the messages of
 * controller_service.proto in protobuf's JSON mapping (lowerCamelCase names, 64-bit
 * numbers as strings, fields at their defaults included); {@code /api/vms} with
 * {@link VmsStatus} and {@code /api/applications} with {@link ApplicationsStatus}
 * (lowerCamelCase names, numbers as numbers, infinite scores as the strings
 * {@code "-Infinity"} and {@code "Infinity"}). An error is
 * {@code {"error": "IMAGE_NOT_FOUND", "message": "..."}} with the HTTP status of its code;
 * an answer that takes longer than {@value #WAIT_SECONDS} s is a 503, so that the page tells
 * of a controller that cannot reach ZooKeeper before the browser gives up on it.
 */
final class StatusApi {
    private static final Logger log = LoggerFactory.getLogger(StatusApi.class);
    private static final int WAIT_SECONDS = 3;
    private static final JsonFormat.Printer PRINTER = JsonFormat.printer().includingDefaultValueFields();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final StatusSource source;

    StatusApi(StatusSource source) {
        this.source = requireNonNull(source, "source is null");
    }

    Reply status(GetRequest request) {
        return answer(() -> source.status().apply(request.parameter("image", "")));
    }

    Reply locality(GetRequest request) {
        return answer(() -> source.locality().apply(image(request), regions(request)));
    }

    Reply vms(GetRequest request) {
        return reply(() -> MAPPER.writeValueAsString(await(source.vms().get())));
    }

    Reply applications(GetRequest request) {
        return reply(() -> MAPPER.writeValueAsString(await(source.applications().get())));
    }

    private static String image(GetRequest request) {
        String image = request.parameter("image", "");
        if (image.isEmpty()) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "name the image: /api/locality?image=NAME");
        }
        return image;
    }

    /** The regions asked for; 0, GetImageLocality's default, when none. */
    private static int regions(GetRequest request) {
        String regions = request.parameter("regions", "0");
        try {
            return Integer.parseInt(regions);
        } catch (NumberFormatException e) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "regions must be a whole number, not '" + regions + "'");
        }
    }

    private static Reply answer(Supplier<CompletableFuture<? extends Message>> call) {
        return reply(() -> PRINTER.print(await(call.get())));
    }

    private static Reply reply(JsonAnswer answer) {
        try {
            return Reply.of(200, Reply.JSON, answer.json());
        } catch (HeliotropeException e) {
            if (e.code().kind() == ErrorCode.Kind.INTERNAL) {
                log.error("internal error", e);
            }
            return error(HttpErrors.status(e.code()), e.code().name(), e.getMessage());
        } catch (IOException | RuntimeException e) {
            log.error("internal error", e);
            return error(500, "INTERNAL", "internal error; the controller's log has the details");
        }
    }

    private static <T> T await(CompletableFuture<T> answer) {
        try {
            return answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw HeliotropeException.unwrap(e) instanceof RuntimeException failure ? failure : new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE,
                    "no answer within " + WAIT_SECONDS + " s: ZooKeeper is slow or out of reach of the controller");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HeliotropeException(ErrorCode.SHUTTING_DOWN, "the controller is shutting down");
        }
    }

    private static Reply error(int status, String code, String message) {
        try {
            return Reply.of(status, Reply.JSON, MAPPER.writeValueAsString(new ErrorBody(code, message)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an error body did not serialize", e);
        }
    }

    private record ErrorBody(String error, String message) {}

    /** The JSON of an answer, waited for. */
    private interface JsonAnswer {
        String json() throws IOException;
    }
}
