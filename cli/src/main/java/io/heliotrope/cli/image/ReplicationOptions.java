package io.heliotrope.cli.image;

import io.heliotrope.cli.client.Target;
import io.heliotrope.cli.print.Sizes;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.PropagationMode;
import io.heliotrope.proto.controller.v1.PullMode;
import io.heliotrope.proto.controller.v1.ReplicationSettings;
import io.heliotrope.proto.controller.v1.TransitionTable;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

import java.util.Locale;

/**
 * An image's replication settings (DESIGN.md section 6), as {@code image create} and
 * {@code image set} take them. They live in the controller's catalog: a standalone site
 * has none. A site applies a change from the image's next open.
 */
final class ReplicationOptions {
    @Option(names = "--mode", paramLabel = "MODE", converter = Mode.Converter.class, description =
            "How blocks reach other sites: proactive (default) pushes likely-read blocks ahead of migrations, in the background; "
            + "on-demand pushes nothing, a block moves when it is read elsewhere; sync acknowledges a write once --sync-copies other "
            + "sites hold it; remote keeps no copies away from --home, every read and write goes there.")
    Mode mode;

    @Option(names = "--home", paramLabel = "SITE",
            description = "The site that keeps every block of a remote image; a registered site "
                    + "(default: the first site that opens the image for writing, as no site creates it).")
    String home;

    @Option(names = "--sync-copies", paramLabel = "N", description =
            "In sync mode, how many other sites hold a write before it is acknowledged (default: 1). Should the writing site die, "
            + "the next site to open the image first recovers the writes it never flushed from those sites; while none of the "
            + "sites holding some of them answers, the open waits (the site's open wait) and then fails rather than serve the image "
            + "without them.")
    Integer syncCopies;

    @Option(names = "--sync-min", paramLabel = "N", description =
            "In sync mode, the fewest copies, this site's own included, a write needs to be acknowledged when fewer than "
            + "--sync-copies other sites answer (Ceph's min_size): from 1 to sync copies + 1; 0 sets the default, sync copies + 1, "
            + "where a write fails rather than go without all its copies. Below sync copies + 1 the image keeps writing, degraded "
            + "(image show, helio status and the status page say so), until the sites that missed writes have them again; losing "
            + "the writing site while degraded loses the writes only it holds.")
    Integer syncMin;

    @Option(names = "--k", paramLabel = "K", description = "Weight of the read/write ratio in the push priority p = K * fr/fw + fr (default: 1000).")
    Double k;

    @Option(names = "--s", paramLabel = "S", description = "Blocks read less than S times per write (fr/fw < S) are not pushed (default: 1).")
    Double s;

    @Option(names = "--bandwidth", paramLabel = "RATE", converter = Sizes.class,
            description = "Cap on push traffic, in BYTES per second over every 1 s window, e.g. 100M = 100 MiB/s; 0: no cap (the default).")
    Long bandwidth;

    @Option(names = "--budget", paramLabel = "BYTES", converter = Sizes.class,
            description = "Most bytes pushes may send per day, e.g. 50G; 0: no budget (the default).")
    Long budget;

    @Option(names = "--transitions", paramLabel = "FROM:TO=P,...", converter = Transitions.class, description =
            "Hint of where the image's VM moves next: per site FROM, the chance P of moving to TO; each FROM's row sums to 1, "
            + "e.g. virginia:taiwan=0.9,virginia:virginia=0.1; 'none' clears it. The controller learns from the lease moves it sees: "
            + "a hint row weighs as much as 10 observed moves from its site.")
    TransitionTable transitions;

    @Option(names = "--pull", paramLabel = "on|off", converter = Pull.Converter.class, description =
            "Whether a site that opens the image for writing fetches the blocks it lacks from the other sites in the background, "
            + "hottest first, so that reads soon after a move are local (default: on for proactive and sync, off for on-demand; "
            + "a remote image is never pulled).")
    Pull pull;

    /** Whether any setting was given. */
    boolean any() {
        return mode != null || home != null || syncCopies != null || syncMin != null || k != null || s != null || bandwidth != null || budget != null
                || transitions != null || pull != null;
    }

    /** Fails when settings were given to a standalone site, which has no catalog to keep them. */
    void requireNone(String command, Target site) {
        if (any()) {
            throw noneAt(command, site);
        }
    }

    static HeliotropeException noneAt(String command, Target site) {
        return new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "'" + command + "': " + site.describe()
                + " keeps no replication settings; a controller's catalog does");
    }

    ReplicationSettings toProto() {
        ReplicationSettings.Builder settings = ReplicationSettings.newBuilder();
        if (mode != null) {
            settings.setMode(mode.proto);
        }
        if (home != null) {
            settings.setHome(home);
        }
        if (syncCopies != null) {
            settings.setSyncCopies(syncCopies);
        }
        if (syncMin != null) {
            settings.setSyncMin(syncMin);
        }
        if (k != null) {
            settings.setKFactor(k);
        }
        if (s != null) {
            settings.setSRatio(s);
        }
        if (bandwidth != null) {
            settings.setBandwidthBytesPerSecond(bandwidth);
        }
        if (budget != null) {
            settings.setBudgetBytesPerDay(budget);
        }
        if (transitions != null) {
            settings.setTransitions(transitions);
        }
        if (pull != null) {
            settings.setPull(pull.proto);
        }
        return settings.build();
    }

    static String mode(ImageConfig image) {
        return image.getMode().name().replace("PROPAGATION_MODE_", "").replace('_', '-').toLowerCase(Locale.ROOT);
    }

    /** The background pull as written on the command line. */
    enum Pull {
        ON(PullMode.PULL_MODE_ON),
        OFF(PullMode.PULL_MODE_OFF);

        final PullMode proto;

        Pull(PullMode proto) {
            this.proto = proto;
        }

        static final class Converter implements ITypeConverter<Pull> {
            @Override
            public Pull convert(String value) {
                return named(Pull.class, value, "invalid pull '" + value + "': use on or off");
            }
        }
    }

    /** Propagation modes as written on the command line. */
    enum Mode {
        PROACTIVE(PropagationMode.PROPAGATION_MODE_PROACTIVE),
        ON_DEMAND(PropagationMode.PROPAGATION_MODE_ON_DEMAND),
        SYNC(PropagationMode.PROPAGATION_MODE_SYNC),
        REMOTE(PropagationMode.PROPAGATION_MODE_REMOTE);

        final PropagationMode proto;

        Mode(PropagationMode proto) {
            this.proto = proto;
        }

        static final class Converter implements ITypeConverter<Mode> {
            @Override
            public Mode convert(String value) {
                return named(Mode.class, value, "invalid mode '" + value + "': use proactive, on-demand, sync or remote");
            }
        }
    }

    /** The constant of {@code type} that {@code value} names, in any case, with '-' for '_'; else a usage mistake saying {@code refusal}. */
    private static <E extends Enum<E>> E named(Class<E> type, String value, String refusal) {
        try {
            return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(refusal);
        }
    }
}
