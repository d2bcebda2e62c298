package io.heliotrope.storage.peer;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class TestRegisteredSites {
    @Test
    void aConfiguredAddressWinsOverTheRegisteredOneAndThisSiteIsNotAnOther() {
        RegisteredSites sites = new RegisteredSites("virginia", Map.of("taiwan", "127.0.0.1:17411"));
        assertThat(sites.others()).containsExactly("taiwan");

        sites.update(Map.of("virginia", "127.0.0.1:7410", "taiwan", "127.0.0.1:7411", "oregon", "127.0.0.1:7412"));

        assertThat(sites.others()).containsExactly("oregon", "taiwan");
        assertThat(sites.grpcAddress("taiwan")).hasValue("127.0.0.1:17411");
        assertThat(sites.grpcAddress("oregon")).hasValue("127.0.0.1:7412");
        assertThat(sites.grpcAddress("mars")).isEmpty();
    }
}
