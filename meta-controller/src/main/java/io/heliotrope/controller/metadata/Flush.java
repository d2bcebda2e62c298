package io.heliotrope.controller.metadata;

import io.heliotrope.controller.Names;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.lease.SyncRecovery;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.image.ImageNames;
import io.heliotrope.version.Version;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

/**
 * One delta from the writer {@code site}, under lease {@code epoch}. It may also give the
 * lease up ({@code release}) or hand it to the site a prepare named ({@code moveTo}), in
 * the same transaction as the delta. A {@code recovery} flush commits what the sync sites
 * of a dead holding hold instead ({@link SyncRecovery}) and does neither. {@code id}, when
 * not empty, is the site's for this flush, the same in each of its attempts (at another
 * controller after a lost reply): the commit record carries it, so that an attempt after one
 * that went through is answered, not applied again.
 */
public record Flush(String image, String site, long epoch, boolean release, String moveTo, BlockEntries entries, boolean recovery, String id) {
    /** A flush of the writer's own blocks. */
    public Flush(String image, String site, long epoch, boolean release, String moveTo, BlockEntries entries) {
        this(image, site, epoch, release, moveTo, entries, false);
    }

    /** A flush without an {@code id}: every attempt of it is applied. */
    public Flush(String image, String site, long epoch, boolean release, String moveTo, BlockEntries entries, boolean recovery) {
        this(image, site, epoch, release, moveTo, entries, recovery, "");
    }

    public Flush {
        ImageNames.check(image);
        Names.site(site);
        moveTo = requireNonNullElse(moveTo, "");
        id = requireNonNullElse(id, "");
        requireNonNull(entries, "entries is null");
        if (!moveTo.isEmpty()) {
            Names.site(moveTo);
            if (release) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + image + "': a flush cannot both release the lease and move it");
            }
        }
        if (recovery && (release || !moveTo.isEmpty())) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + image + "': a recovery flush can neither release the lease nor move it");
        }
    }

    /**
     * Checks the entries against the image and the lease: blocks in range, own site (or the
     * home of a {@code remote} image, {@code remoteHome}, which stores what every site writes
     * to it) or zero markers, versions of the epochs of this holding ({@code grantEpoch} to {@code epoch}).
     * A version of an earlier holding is one a fenced session wrote, and may never commit;
     * any of this holding's is larger than every version committed before its grant. The
     * one exception is a recovery flush: sync sites of the pending recovery as holders (or
     * zero markers), versions of its dead epochs, which those sites hold as acknowledged copies.
     */
    void check(long imageBlocks, String remoteHome, Lease lease) {
        int n = entries.size();
        if (n == 0) {
            return;
        }
        long outside = entries.block(0) < 0 ? entries.block(0) : entries.block(n - 1);
        if (outside < 0 || outside >= imageBlocks) {
            throw new HeliotropeException(ErrorCode.OUT_OF_RANGE, "image '" + image + "': block " + Long.toUnsignedString(outside)
                    + " is beyond the end of the image (" + imageBlocks + " blocks)");
        }
        if (recovery) {
            checkRecovered(lease.recovery());
        } else {
            checkOwn(lease.grantEpoch(), remoteHome);
        }
    }

    private void checkOwn(long grantEpoch, String remoteHome) {
        long[] byHolder = entries.countByHolder();
        for (int holder = 1; holder < byHolder.length; holder++) {
            String named = entries.sites().get(holder - 1);
            if (byHolder[holder] > 0 && !named.equals(site) && !named.equals(remoteHome)) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + image + "': site " + site
                        + " flushed blocks held by site " + named + "; a flush names its own site"
                        + (remoteHome.isEmpty() ? "" : ", the home " + remoteHome + " of the remote image,") + " or a zero marker");
            }
        }
        checkEpochs(grantEpoch, epoch, "those site " + site + " has held the lease at since its grant");
    }

    private void checkRecovered(SyncRecovery owed) {
        long[] byHolder = entries.countByHolder();
        for (int holder = 1; holder < byHolder.length; holder++) {
            String named = entries.sites().get(holder - 1);
            if (byHolder[holder] > 0 && !owed.sites().contains(named)) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + image + "': a recovery flush names site " + named
                        + " as a holder; it may name the sites that took sync copies of the dead holdings, " + owed.sites() + ", or a zero marker");
            }
        }
        checkEpochs(owed.firstEpoch(), owed.lastEpoch(), "those of the dead holdings being recovered");
    }

    private void checkEpochs(long first, long last, String whose) {
        for (int i = 0; i < entries.size(); i++) {
            long version = entries.version(i);
            long versionEpoch = Version.epochOf(version);
            if (version == 0 || versionEpoch < first || versionEpoch > last) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + image + "': block " + entries.block(i)
                        + " has version " + Version.of(version) + "; versions must be non-zero and of epochs " + first + " to " + last
                        + ", " + whose);
            }
        }
    }
}
