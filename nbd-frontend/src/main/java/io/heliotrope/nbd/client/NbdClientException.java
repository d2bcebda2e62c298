package io.heliotrope.nbd.client;

import java.io.IOException;

/**
 * A server's refusal, as an {@link NbdClient} receives it: an error reply to an option
 * ({@link #optionError}, one of {@code NbdConstants.REP_ERR_*}) or an errno in the reply to
 * a request ({@link #errno}); the other is 0. The message is the server's, when it sent one.
 */
public final class NbdClientException extends IOException {
    private final int optionError;
    private final int errno;

    private NbdClientException(String message, int optionError, int errno) {
        super(message);
        this.optionError = optionError;
        this.errno = errno;
    }

    static NbdClientException option(int optionError, String message) {
        return new NbdClientException(message, optionError, 0);
    }

    static NbdClientException request(int errno, String message) {
        return new NbdClientException(message, 0, errno);
    }

    public int optionError() {
        return optionError;
    }

    public int errno() {
        return errno;
    }
}
