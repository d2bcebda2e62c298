package io.heliotrope.scheduler.spi;

/** A filter's answer: accepted, or rejected with the reason {@code explain} shows. */
public record Verdict(boolean accepted, String reason) {
    public static final Verdict ACCEPT = new Verdict(true, "");

    public static Verdict reject(String reason) {
        return new Verdict(false, reason);
    }
}
