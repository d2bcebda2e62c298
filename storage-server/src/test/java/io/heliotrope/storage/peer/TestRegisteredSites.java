package io.heliotrope.storage.peer;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class TestRegisteredSites {
    @Test
    void aConfiguredAddressWinsOverTheRegisteredOneAndThisSiteIsNotAnOther() {
        RegisteredSites sites = new RegisteredSites("virginia", Map.of("taiwan", "127.0.0.1:17411"), Map::of, Runnable::run);
        assertThat(sites.others()).containsExactly("taiwan");

        sites.update(Map.of("virginia", "127.0.0.1:7410", "taiwan", "127.0.0.1:7411", "oregon", "127.0.0.1:7412"));

        assertThat(sites.others()).containsExactly("oregon", "taiwan");
        assertThat(sites.grpcAddress("taiwan")).hasValue("127.0.0.1:17411");
        assertThat(sites.grpcAddress("oregon")).hasValue("127.0.0.1:7412");
        assertThat(sites.grpcAddress("mars")).isEmpty();
    }

    @Test
    void aReadingOfTheRegistryIsSharedByTheCallersThatComeMeanwhile() {
        List<Runnable> listings = new ArrayList<>();
        RegisteredSites sites = new RegisteredSites("virginia", Map.of(), () -> Map.of("virginia", "127.0.0.1:7410", "oregon", "127.0.0.1:7412"),
                listings::add);

        CompletableFuture<Void> reading = sites.relist();
        assertThat(sites.relist()).isSameAs(reading);
        assertThat(sites.others()).isEmpty();
        listings.remove(0).run();

        assertThat(reading).isCompleted();
        assertThat(sites.others()).containsExactly("oregon");
        assertThat(sites.relist()).isNotSameAs(reading);
    }

    @Test
    void aRegistryThatCannotBeReadLeavesTheListAsItWas() {
        RegisteredSites sites = new RegisteredSites("virginia", Map.of(), () -> {
            throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "the controller does not answer");
        }, Runnable::run);
        sites.update(Map.of("oregon", "127.0.0.1:7412"));

        assertThat(sites.relist()).isCompleted();
        assertThat(sites.others()).containsExactly("oregon");
    }
}
