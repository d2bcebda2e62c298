package io.heliotrope.controller.server;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestControllerConfig {
    @Test
    void fillsDefaults() {
        assertThat(ControllerConfig.of("zk:2181", 0, 0)).isEqualTo(new ControllerConfig("zk:2181", "127.0.0.1", 0, 0,
                Duration.ofSeconds(15), Duration.ofSeconds(15), "/heliotrope"));
        assertThat(new ControllerConfig("zk:2181", "", 7400, 7480, Duration.ZERO, null, ""))
                .isEqualTo(ControllerConfig.of("zk:2181", ControllerConfig.DEFAULT_GRPC_PORT, ControllerConfig.DEFAULT_STATUS_PORT));
    }

    @Test
    void rejectsNonsense() {
        assertThatThrownBy(() -> ControllerConfig.of("zk:2181", 70000, 0)).hasMessage("port out of range: 70000");
        assertThatThrownBy(() -> ControllerConfig.of("zk:2181", 0, -1)).hasMessage("port out of range: -1");
        assertThatThrownBy(() -> ControllerConfig.of(null, 0, 0)).hasMessage("zookeeperConnect is null");
        assertThatThrownBy(() -> new ControllerConfig("zk", null, 0, 0, Duration.ofSeconds(-1), null, null))
                .hasMessage("lease TTL and session timeout must be positive");
    }
}
