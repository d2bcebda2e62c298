package io.heliotrope.scheduler.decision;

import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.Decision;

import java.time.Instant;
import java.util.List;

/**
 * Where applications, their workload reports and their decisions are kept: in ZooKeeper,
 * by the controller, so that any controller takes reports and a scheduler that takes over
 * finds them. Calls block; failures are {@code HeliotropeException}s
 * ({@code APPLICATION_NOT_FOUND}, {@code APPLICATION_EXISTS}, {@code PEER_UNAVAILABLE} for ZooKeeper).
 */
public interface ApplicationStore {
    /** Stores a new application (its decisions empty, its creation time set). */
    Application create(Application application);

    Application get(String name);

    /** Every application, in name order. */
    List<Application> list();

    /** Deletes the application with its reports and decisions. */
    void delete(String name);

    /**
     * Keeps a report (its JSON as received) and drops the application's reports older than
     * {@code keepSince}; returns how many it keeps, this one included.
     */
    int addReport(String application, Instant receivedAt, String json, Instant keepSince);

    /** The application's reports received at or after {@code since}, oldest first. */
    List<StoredReport> reports(String application, Instant since);

    /**
     * Appends a decision to the application's history: folded into the newest one when it
     * has the same outcome, reason and plans (its repeats counted, its last time moved),
     * and the oldest dropped beyond 50.
     */
    void record(String application, Decision decision);

    /** A report as kept. */
    record StoredReport(Instant receivedAt, String json) {
    }
}
