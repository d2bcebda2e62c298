package io.heliotrope.benchmarks.containers;

import io.heliotrope.benchmarks.containers.ContainerSpec.Bind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestContainerSpec {
    @Test
    void aBindIsOnePathForBothSidesOrHostColonContainer() {
        assertThat(Bind.parse("/var/tmp/work")).isEqualTo(new Bind("/var/tmp/work", "/var/tmp/work"));
        assertThat(Bind.parse("/var/tmp/zk1:/data")).isEqualTo(new Bind("/var/tmp/zk1", "/data"));
    }

    @Test
    void aRelativePathIsRefusedWithBothPathsInTheMessage() {
        assertThatThrownBy(() -> Bind.parse("work:/data")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("work:/data");
        assertThatThrownBy(() -> Bind.parse("/work:data")).isInstanceOf(IllegalArgumentException.class);
    }
}
