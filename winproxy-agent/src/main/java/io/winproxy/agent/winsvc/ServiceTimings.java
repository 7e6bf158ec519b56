package io.winproxy.agent.winsvc;

import java.time.Duration;

/**
 * How the host paces its reports to the SCM.
 *
 * @param waitHint     the {@code dwWaitHint} sent with every pending report: the SCM considers the service hung if
 *                     no report with a higher checkpoint arrives within it
 * @param heartbeat    how often a pending state is re-reported with the next checkpoint; shorter than waitHint
 * @param readyTimeout how long {@code START_PENDING} lasts at most before {@code RUNNING} is reported even though
 *                     the agent has not called ready (it keeps retrying on its own, like upstream kube-proxy)
 * @param stopTimeout  how long after a stop request the host waits for the agent before it reports {@code STOPPED}
 *                     anyway (the operator asked for the stop, so this is not reported as a failure)
 */
public record ServiceTimings(Duration waitHint, Duration heartbeat, Duration readyTimeout, Duration stopTimeout) {

    /** 10 s wait hint, 2 s heartbeat, ready within 60 s, stop within 30 s. */
    public static final ServiceTimings DEFAULTS = new ServiceTimings(Duration.ofSeconds(10), Duration.ofSeconds(2),
            Duration.ofSeconds(60), Duration.ofSeconds(30));

    public ServiceTimings {
        requirePositive(waitHint, "waitHint");
        requirePositive(heartbeat, "heartbeat");
        requirePositive(readyTimeout, "readyTimeout");
        requirePositive(stopTimeout, "stopTimeout");
        if (heartbeat.compareTo(waitHint) >= 0) {
            throw new IllegalArgumentException("heartbeat (" + heartbeat + ") must be shorter than waitHint ("
                    + waitHint + ")");
        }
    }

    int waitHintMillis() {
        return (int) Math.min(Integer.MAX_VALUE, waitHint.toMillis());
    }

    private static void requirePositive(Duration value, String name) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(name + " must be a positive duration, got " + value);
        }
    }
}
