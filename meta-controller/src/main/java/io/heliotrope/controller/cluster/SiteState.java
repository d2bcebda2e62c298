package io.heliotrope.controller.cluster;

import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.SiteHealth;
import io.heliotrope.proto.storage.v1.SiteStatus;

import static java.util.Objects.requireNonNull;

/**
 * What the cluster view knows of a site: whether it answered the last call, when it last
 * answered (0: never), why the last call failed (empty when it did not), and its last
 * status (null until it gives one; kept while it is down).
 */
record SiteState(boolean up, long lastSeenMillis, String error, SiteStatus status) {
    static final SiteState NOT_ASKED = new SiteState(false, 0, "not asked yet", null);

    SiteState {
        requireNonNull(error, "error is null");
    }

    /** It answered at {@code now}, with {@code status}, or with a note instead when {@code status} is null. */
    SiteState answered(long now, SiteStatus status, String note) {
        return status == null ? new SiteState(true, now, note, this.status) : new SiteState(true, now, "", status);
    }

    SiteState failed(String error) {
        return new SiteState(false, lastSeenMillis, error, status);
    }

    SiteHealth toProto(Site site) {
        SiteHealth.Builder health = SiteHealth.newBuilder().setSite(site).setUp(up).setLastSeenEpochMillis(lastSeenMillis).setError(error);
        if (status != null) {
            health.setStatus(status);
        }
        return health.build();
    }
}
