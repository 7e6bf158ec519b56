package io.winproxy.installer;

import java.time.Duration;
import java.util.List;

/**
 * The SCM recovery actions of the service: restart after each delay in turn (the last one repeats for later
 * failures), forget the failure count after {@code resetPeriod} without failure, and, with
 * {@code onNonCrashFailures}, count a stop with a non-zero exit code as a failure too, which is how winproxy reports
 * a fatal error.
 */
public record RecoveryActions(List<Duration> restartDelays, Duration resetPeriod, boolean onNonCrashFailures) {

    /** Restart after 10 s, 30 s, 60 s; reset after 900 s; also on non-zero exit codes. */
    public static final RecoveryActions DEFAULTS = new RecoveryActions(
            List.of(Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60)),
            Duration.ofSeconds(900), true);

    public RecoveryActions {
        restartDelays = List.copyOf(restartDelays);
        if (restartDelays.isEmpty()) {
            throw new IllegalArgumentException("--restart-delays: at least one delay is needed");
        }
        for (Duration delay : restartDelays) {
            if (delay.isNegative() || delay.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("--restart-delays: " + delay.toSeconds()
                        + " s is not a valid delay");
            }
        }
        if (resetPeriod.isNegative() || resetPeriod.toSeconds() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--reset-period: " + resetPeriod.toSeconds()
                    + " s is not a valid period");
        }
    }

    /** The delays in milliseconds, as {@code SC_ACTION.Delay} takes them. */
    public List<Integer> restartDelaysMillis() {
        return restartDelays.stream().map(d -> (int) d.toMillis()).toList();
    }

    /** {@code SERVICE_FAILURE_ACTIONS.dwResetPeriod}, in seconds. */
    public int resetPeriodSeconds() {
        return (int) resetPeriod.toSeconds();
    }
}
