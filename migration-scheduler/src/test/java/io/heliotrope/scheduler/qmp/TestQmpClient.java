package io.heliotrope.scheduler.qmp;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

class TestQmpClient {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private final QmpCodec codec = new QmpCodec();

    @TempDir
    Path dir;

    @Test
    void negotiatesCapabilitiesThenCorrelatesRepliesById() throws Exception {
        // Answers query-status at once and holds query-migrate, so the second reply comes first.
        try (TestingQmpServer server = new TestingQmpServer(dir.resolve("qmp.sock"), TestQmpClient::statusOnly);
                QmpClient client = QmpClient.connect(server.socket(), "vm1", codec, TIMEOUT)) {
            assertThat(server.nextCommand().get("execute").asText()).isEqualTo("qmp_capabilities");
            CompletableFuture<MigrationInfo> migration = client.call(QmpCommands.QUERY_MIGRATE);
            CompletableFuture<QmpCommands.StatusInfo> status = client.call(QmpCommands.QUERY_STATUS);
            long migrationId = server.nextCommand().get("id").asLong();
            server.nextCommand();

            assertThat(status.get()).isEqualTo(new QmpCommands.StatusInfo(false, "inmigrate"));
            assertThat(migration).isNotDone();
            server.send("{\"return\": {\"status\": \"active\"}, \"id\": " + migrationId + "}\r\n");
            assertThat(migration.get().status()).isEqualTo("active");
        }
    }

    @Test
    void failsARefusedCommandWithQemusError() throws Exception {
        try (TestingQmpServer server = new TestingQmpServer(dir.resolve("qmp.sock"), command -> command.get("execute").asText().equals("cont")
                ? "{\"error\": {\"class\": \"GenericError\", \"desc\": \"Migration is not finalized yet\"}}"
                : TestingQmpServer.empty(command));
                QmpClient client = QmpClient.connect(server.socket(), "vm1", codec, TIMEOUT)) {
            assertThat(client.call(QmpCommands.Action.CONT))
                    .failsWithin(TIMEOUT)
                    .withThrowableOfType(Exception.class)
                    .havingCause()
                    .isInstanceOf(QmpException.class)
                    .withMessage("vm1: cont: Migration is not finalized yet");
        }
    }

    @Test
    void deliversEventsInOrderAndAwaitsOne() throws Exception {
        try (TestingQmpServer server = new TestingQmpServer(dir.resolve("qmp.sock"), TestingQmpServer::empty);
                QmpClient client = QmpClient.connect(server.socket(), "vm1", codec, TIMEOUT)) {
            List<QmpEvent> seen = new CopyOnWriteArrayList<>();
            client.addListener(seen::add);
            CompletableFuture<QmpEvent> completed = client.await(event -> event.detail().equals("completed"), TIMEOUT);
            server.event("STOP", "{}", 10, 1);
            server.event("MIGRATION", "{\"status\": \"completed\"}", 10, 2);
            server.event("RESUME", "{}", 10, 3);

            assertThat(completed.get()).isEqualTo(new QmpEvent.Migration(10_000_002L, "completed"));
            // A call answered after the events were sent proves they were all dispatched.
            client.call(QmpCommands.Action.STOP).get();
            assertThat(seen).extracting(QmpEvent::timestampMicros).containsExactly(10_000_001L, 10_000_002L, 10_000_003L);
        }
    }

    @Test
    void anAwaitedEventThatDoesNotComeTimesOut() throws Exception {
        try (TestingQmpServer server = new TestingQmpServer(dir.resolve("qmp.sock"), TestingQmpServer::empty);
                QmpClient client = QmpClient.connect(server.socket(), "vm1", codec, TIMEOUT)) {
            assertThat(client.await(event -> true, Duration.ofMillis(50)))
                    .failsWithin(TIMEOUT)
                    .withThrowableOfType(Exception.class)
                    .withCauseInstanceOf(TimeoutException.class);
        }
    }

    @Test
    void failsEveryPendingAndLaterCallWhenTheSocketCloses() throws Exception {
        try (TestingQmpServer server = new TestingQmpServer(dir.resolve("qmp.sock"), command -> command.get("execute").asText().equals("qmp_capabilities")
                ? TestingQmpServer.empty(command)
                : null);
                QmpClient client = QmpClient.connect(server.socket(), "vm1", codec, TIMEOUT)) {
            CompletableFuture<QmpCommands.Empty> quit = client.call(QmpCommands.Action.QUIT);
            CompletableFuture<QmpEvent> event = client.await(e -> true, TIMEOUT);
            server.nextCommand();
            server.nextCommand();
            server.disconnect();

            assertThat(client.closed()).succeedsWithin(TIMEOUT);
            assertThat(quit).failsWithin(TIMEOUT).withThrowableOfType(Exception.class)
                    .havingCause().isInstanceOf(QmpException.class).withMessage("vm1: quit: the QMP connection closed");
            assertThat(event).failsWithin(TIMEOUT).withThrowableOfType(Exception.class)
                    .havingCause().withMessage("vm1: waiting for an event: the QMP connection closed");
            assertThat(client.call(QmpCommands.QUERY_STATUS)).isCompletedExceptionally();
            assertThat(client.isOpen()).isFalse();
        }
    }

    private static String statusOnly(JsonNode command) {
        return switch (command.get("execute").asText()) {
            case "query-status" -> "{\"return\": {\"running\": false, \"status\": \"inmigrate\"}}";
            case "query-migrate" -> null;
            default -> TestingQmpServer.empty(command);
        };
    }
}
