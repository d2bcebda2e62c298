package io.heliotrope.nbd.protocol;

import io.heliotrope.nbd.NbdException;
import io.heliotrope.nbd.NbdException.Kind;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_POLICY;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_SHUTDOWN;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNKNOWN;
import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

class TestNbdErrors {
    private static final Map<Kind, NbdError> ERRNO = Map.ofEntries(
            entry(Kind.INVALID, NbdError.EINVAL),
            entry(Kind.UNKNOWN_EXPORT, NbdError.EINVAL),
            entry(Kind.NOT_PERMITTED, NbdError.EPERM),
            entry(Kind.NO_SPACE, NbdError.ENOSPC),
            entry(Kind.SHUTTING_DOWN, NbdError.ESHUTDOWN),
            entry(Kind.UNAVAILABLE, NbdError.EIO),
            entry(Kind.FAILURE, NbdError.EIO));
    private static final Map<Kind, Integer> OPTION_ERROR = Map.ofEntries(
            entry(Kind.INVALID, REP_ERR_POLICY),
            entry(Kind.UNKNOWN_EXPORT, REP_ERR_UNKNOWN),
            entry(Kind.NOT_PERMITTED, REP_ERR_POLICY),
            entry(Kind.NO_SPACE, REP_ERR_POLICY),
            entry(Kind.SHUTTING_DOWN, REP_ERR_SHUTDOWN),
            entry(Kind.UNAVAILABLE, REP_ERR_POLICY),
            entry(Kind.FAILURE, REP_ERR_POLICY));

    @Test
    void eachKindHasAnErrnoAndAnOptionError() {
        assertThat(ERRNO).containsOnlyKeys(Kind.values());
        assertThat(OPTION_ERROR).containsOnlyKeys(Kind.values());
        for (Kind kind : Kind.values()) {
            NbdException failure = new NbdException(kind, "what went wrong");
            assertThat(NbdErrors.toNbdError(failure)).as(kind.name()).isEqualTo(ERRNO.get(kind));
            assertThat(NbdErrors.toOptionError(failure)).as(kind.name()).isEqualTo(OPTION_ERROR.get(kind));
            assertThat(NbdErrors.isFault(failure)).as(kind.name()).isEqualTo(kind == Kind.FAILURE);
            assertThat(NbdErrors.message(failure)).isEqualTo("what went wrong");
        }
    }

    @Test
    void looksThroughTheLayersFuturesAdd() {
        Throwable wrapped = new CompletionException(new ExecutionException(new NbdException(Kind.NO_SPACE, "disk full")));
        assertThat(NbdErrors.toNbdError(wrapped)).isEqualTo(NbdError.ENOSPC);
        assertThat(NbdErrors.message(wrapped)).isEqualTo("disk full");
        assertThat(NbdErrors.toOptionError(new CompletionException(new NbdException(Kind.UNKNOWN_EXPORT, "no such export"))))
                .isEqualTo(REP_ERR_UNKNOWN);
    }

    @Test
    void otherFailuresAreFaultsWhoseTextStaysInTheServer() {
        assertThat(NbdErrors.toNbdError(new UnsupportedOperationException("trim"))).isEqualTo(NbdError.ENOTSUP);
        assertThat(NbdErrors.toNbdError(new CompletionException(new OutOfMemoryError("Direct buffer memory")))).isEqualTo(NbdError.ENOMEM);
        Throwable bug = new CompletionException(new IllegalStateException("secret detail"));
        assertThat(NbdErrors.toNbdError(bug)).isEqualTo(NbdError.EIO);
        assertThat(NbdErrors.toOptionError(bug)).isEqualTo(REP_ERR_POLICY);
        assertThat(NbdErrors.isFault(bug)).isTrue();
        assertThat(NbdErrors.message(bug)).isEqualTo("internal error");
    }
}
