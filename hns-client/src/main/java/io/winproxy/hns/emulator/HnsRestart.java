package io.winproxy.hns.emulator;

import java.time.Duration;
import java.util.Objects;

/**
 * How an emulated HNS restart behaves ({@link HnsEmulator#restartHns(HnsRestart)}): how long HNS is down (every call
 * fails with {@code ERROR_SERVICE_NOT_ACTIVE}) and whether the dropped load balancers and remote endpoints come back
 * with their old IDs, after a delay or on {@link HnsEmulator#rehydrate()}.
 */
public record HnsRestart(Duration down, Rehydration rehydration, Duration rehydrateAfter) {

    /** Whether and when dropped objects come back. */
    public enum Rehydration { NONE, AFTER_DELAY, ON_COMMAND }

    /** Drops everything for good, no downtime (the behaviour of {@link HnsEmulator#restartHns()}). */
    public static final HnsRestart DROP = new HnsRestart(Duration.ZERO, Rehydration.NONE, Duration.ZERO);

    public HnsRestart {
        down = Objects.requireNonNullElse(down, Duration.ZERO);
        rehydration = Objects.requireNonNullElse(rehydration, Rehydration.NONE);
        rehydrateAfter = Objects.requireNonNullElse(rehydrateAfter, Duration.ZERO);
        if (down.isNegative() || rehydrateAfter.isNegative()) {
            throw new IllegalArgumentException("restart durations must not be negative");
        }
    }

    /** The dropped objects come back {@code delay} after the restart. */
    public static HnsRestart rehydratingAfter(Duration delay) {
        return new HnsRestart(Duration.ZERO, Rehydration.AFTER_DELAY, delay);
    }

    /** The dropped objects come back on {@link HnsEmulator#rehydrate()}. */
    public static HnsRestart rehydratingOnCommand() {
        return new HnsRestart(Duration.ZERO, Rehydration.ON_COMMAND, Duration.ZERO);
    }

    /** The same restart with HNS unavailable for {@code duration}. */
    public HnsRestart withDown(Duration duration) {
        return new HnsRestart(duration, rehydration, rehydrateAfter);
    }

    /** Objects dropped or restored. */
    public record Counts(int loadBalancers, int remoteEndpoints) {
    }
}
