package io.heliotrope.storage.image;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestSerialExecutor {
    @Test
    void aTaskThePoolRefusesFailsAndLeavesTheNextOneToRun() {
        List<Runnable> drains = new ArrayList<>();
        boolean[] full = {true};
        Executor pool = drain -> {
            if (full[0]) {
                throw new RejectedExecutionException("full");
            }
            drains.add(drain);
        };
        SerialExecutor executor = new SerialExecutor(pool);
        List<String> ran = new ArrayList<>();

        assertThatThrownBy(() -> executor.execute(() -> ran.add("refused"))).isInstanceOf(RejectedExecutionException.class);
        full[0] = false;
        executor.execute(() -> ran.add("first"));
        executor.execute(() -> ran.add("second"));
        assertThat(drains).hasSize(1);
        drains.get(0).run();
        assertThat(ran).containsExactly("first", "second");
    }
}
