package io.heliotrope.error;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import static java.util.Objects.requireNonNull;

/**
 * The one exception Heliotrope raises for conditions it understands. Its message is
 * written for the person who reads it: an operator, or a client's log.
 */
public class HeliotropeException extends RuntimeException {
    private final ErrorCode code;

    public HeliotropeException(ErrorCode code, String message) {
        super(requireNonNull(message, "message is null"));
        this.code = requireNonNull(code, "code is null");
    }

    public HeliotropeException(ErrorCode code, String message, Throwable cause) {
        super(requireNonNull(message, "message is null"), cause);
        this.code = requireNonNull(code, "code is null");
    }

    public ErrorCode code() {
        return code;
    }

    /** Strips the {@code CompletionException} and {@code ExecutionException} layers that futures add. */
    public static Throwable unwrap(Throwable throwable) {
        Throwable current = throwable;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /** The first line of the message of the deepest cause: what actually went wrong, for a one-line report. */
    public static String rootMessage(Throwable throwable) {
        Throwable root = throwable;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.toString() : root.getMessage();
        return message.lines().findFirst().orElse(message);
    }
}
