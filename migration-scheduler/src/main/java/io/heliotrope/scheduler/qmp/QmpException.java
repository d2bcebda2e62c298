package io.heliotrope.scheduler.qmp;

/** A QMP command that QEMU refused (its error class and description), or a connection that closed before its reply. */
public final class QmpException extends RuntimeException {
    private final String errorClass;

    public QmpException(String errorClass, String message) {
        super(message);
        this.errorClass = errorClass;
    }

    /** QMP's error class, or "Closed" when the connection ended before the reply. */
    public String errorClass() {
        return errorClass;
    }
}
