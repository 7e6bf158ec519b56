package io.winproxy.agent.status;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/** Runs a read of the agent's state on its sync thread, between syncs (the sync loop implements it). */
public interface StatusSource {
    /**
     * Runs {@code read} on the sync thread and returns its result; empty when the sync thread did not get to it within
     * {@code timeout} (a long sync) or the agent is stopping.
     */
    <T> Optional<T> onSyncThread(Function<SyncView, T> read, Duration timeout);
}
