package io.heliotrope.scheduler.runner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/** Collects a VM's events (pass it to {@link QemuRunner#watch}) and waits for one, with a deadline. */
public final class TestingEventLog implements Consumer<VmEvent> {
    private final List<VmEvent> events = new ArrayList<>();

    @Override
    public synchronized void accept(VmEvent event) {
        events.add(event);
        notifyAll();
    }

    public synchronized List<VmEvent> events() {
        return List.copyOf(events);
    }

    /** The first such event ({@code detail} null: with any detail). */
    public synchronized Optional<VmEvent> find(String event, String detail) {
        return events.stream().filter(e -> e.event().equals(event) && (detail == null || e.detail().equals(detail))).findFirst();
    }

    /** The first such event ({@code detail} null: with any detail), once it has come; fails after {@code deadline}. */
    public synchronized VmEvent await(String event, String detail, Duration deadline) throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        for (Optional<VmEvent> found = find(event, detail); ; found = find(event, detail)) {
            if (found.isPresent()) {
                return found.get();
            }
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no " + event + " " + detail + " within " + deadline + "; saw " + events);
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }
}
