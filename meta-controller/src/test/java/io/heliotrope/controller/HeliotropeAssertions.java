package io.heliotrope.controller;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.assertj.core.api.ThrowableAssert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

public final class HeliotropeAssertions {
    private HeliotropeAssertions() {}

    /** The call fails with exactly this code and message. */
    public static void assertRefused(ThrowableAssert.ThrowingCallable call, ErrorCode code, String message) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(code))
                .hasMessage(message);
    }
}
