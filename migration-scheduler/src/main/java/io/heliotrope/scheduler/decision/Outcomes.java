package io.heliotrope.scheduler.decision;

import io.heliotrope.proto.scheduler.v1.DecisionOutcome;

import java.util.Locale;

/** A decision's outcome as metrics tag it and the status page shows it: {@code move}, {@code stay}, {@code wait}, {@code error}, {@code migration_failed}. */
public final class Outcomes {
    private static final String PREFIX = "DECISION_OUTCOME_";

    private Outcomes() {}

    public static String label(DecisionOutcome outcome) {
        return outcome.name().replace(PREFIX, "").toLowerCase(Locale.ROOT);
    }
}
