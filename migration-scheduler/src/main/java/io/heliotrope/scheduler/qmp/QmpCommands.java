package io.heliotrope.scheduler.qmp;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * The QMP commands we send: those without arguments or result as {@link Action}s, the queries
 * as constants with the record their reply is read into, the others as records of their
 * arguments.
 */
public final class QmpCommands {
    public static final QmpCommand<MigrationInfo> QUERY_MIGRATE = new Query<>("query-migrate", MigrationInfo.class);
    public static final QmpCommand<StatusInfo> QUERY_STATUS = new Query<>("query-status", StatusInfo.class);

    private QmpCommands() {}

    /** The {@code return} of a command that returns nothing ({@code {}}). */
    public record Empty() {}

    /** @param status QEMU's run state: running, paused, inmigrate, postmigrate, finish-migrate, ... */
    public record StatusInfo(boolean running, String status) {}

    public enum Action implements QmpCommand<Empty> {
        QMP_CAPABILITIES("qmp_capabilities"),
        STOP("stop"),
        CONT("cont"),
        QUIT("quit"),
        MIGRATE_CANCEL("migrate_cancel");

        private final String execute;

        Action(String execute) {
            this.execute = execute;
        }

        @Override
        public String execute() {
            return execute;
        }

        @Override
        public Class<Empty> replyType() {
            return Empty.class;
        }
    }

    private record Query<R>(String execute, Class<R> replyType) implements QmpCommand<R> {}

    /** A command whose arguments are the record itself and whose reply is empty. */
    private interface WithArguments extends QmpCommand<Empty> {
        @Override
        default Class<Empty> replyType() {
            return Empty.class;
        }

        @Override
        default Object arguments() {
            return this;
        }
    }

    public record MigrationCapability(String capability, boolean state) {
        public MigrationCapability {
            requireNonNull(capability, "capability is null");
        }
    }

    public record MigrateSetCapabilities(List<MigrationCapability> capabilities) implements WithArguments {
        public MigrateSetCapabilities {
            capabilities = List.copyOf(capabilities);
        }

        /** Turns each named capability on. */
        public static MigrateSetCapabilities on(String... names) {
            return new MigrateSetCapabilities(Stream.of(names).map(name -> new MigrationCapability(name, true)).toList());
        }

        @Override
        public String execute() {
            return "migrate-set-capabilities";
        }
    }

    /** @param maxBandwidth bytes per second for the migration stream */
    public record MigrateSetParameters(@JsonProperty("max-bandwidth") long maxBandwidth) implements WithArguments {
        @Override
        public String execute() {
            return "migrate-set-parameters";
        }
    }

    /** At the source. @param uri where the destination listens, {@code tcp:HOST:PORT} */
    public record Migrate(String uri) implements WithArguments {
        public Migrate {
            requireNonNull(uri, "uri is null");
        }

        @Override
        public String execute() {
            return "migrate";
        }
    }

    /** At a destination started with {@code -incoming defer}. @param uri where to listen, {@code tcp:HOST:PORT} */
    public record MigrateIncoming(String uri) implements WithArguments {
        public MigrateIncoming {
            requireNonNull(uri, "uri is null");
        }

        @Override
        public String execute() {
            return "migrate-incoming";
        }
    }

    /** Lets a migration paused at {@code state} ({@code pre-switchover}, with {@code pause-before-switchover}) go on. */
    public record MigrateContinue(String state) implements WithArguments {
        public MigrateContinue {
            requireNonNull(state, "state is null");
        }

        @Override
        public String execute() {
            return "migrate-continue";
        }
    }
}
