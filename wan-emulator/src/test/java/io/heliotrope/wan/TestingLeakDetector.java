package io.heliotrope.wan;

import io.netty.util.ResourceLeakDetector;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The leak detector Netty builds for every resource type when the surefire argLine names this
 * class: it logs leaks as usual and also keeps them, so {@link LeakCheck} can fail a test on one.
 */
public final class TestingLeakDetector<T> extends ResourceLeakDetector<T> {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    /** The signature Netty's factory looks for. */
    public TestingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    /** The obsolete signature: Netty looks it up too, and logs an error when it is missing. */
    public TestingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        this(resourceType, samplingInterval);
    }

    static List<String> leaks() {
        return List.copyOf(LEAKS);
    }

    // Without an SLF4J binding Netty's logger is off and the detector would skip reporting.
    @Override
    protected boolean needReport() {
        return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        LEAKS.add(resourceType + records);
        // LeakCheck's canaries leak on purpose; a LEAK in the log is always a real one.
        if (!records.contains(LeakCheck.CANARY)) {
            super.reportTracedLeak(resourceType, records);
        }
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        LEAKS.add(resourceType);
        super.reportUntracedLeak(resourceType);
    }
}
