package io.winproxy.agent.sync;

import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a function at most every {@code minInterval} and at least every {@code maxInterval}, and again after
 * {@code retryInterval} when it fails (kube-proxy's {@code pkg/proxy/runner}, kube-proxy-common.md section 5.5).
 *
 * <p>Contract: {@link #run()} never blocks; requests made while a run is in progress or during the cool-down that
 * follows the start of every run coalesce into one run as soon as the run has ended and the cool-down is over. Runs
 * are serialised on the scheduler's thread and their starts are at least {@code minInterval} apart: the cool-down is
 * counted from the <em>start</em> of the previous run, as winkernel's runner does (its token bucket spends the token
 * when a run starts, kube-proxy-common.md section 5.5), so a sync that takes longer than {@code minInterval} is
 * followed at once by the requests it coalesced. (The newer {@code pkg/proxy/runner} counts from the end; counting
 * from the start keeps network-programming latency at about {@code max(minInterval, sync time)} instead of their
 * sum.) The periodic and retry timers are counted from the end of a run. After a failure the next run comes
 * {@code min(retryInterval * 2^k, maxInterval)} later, never before the cool-down ends; any run cancels the pending
 * retry or periodic run. Failures in a row back off: the retry interval doubles after each, at most twice (5 s, 10 s,
 * 20 s with kube-proxy's 5 s), and the first success resets it. Nothing runs at {@link #start()}; the first timed run
 * is {@code maxInterval} later. A run that calls {@link #continueNow()} is followed at once by the next one (no
 * cool-down).
 * Thread-safe.
 */
public final class BoundedFrequencyRunner {
    private static final Logger logger = LoggerFactory.getLogger(BoundedFrequencyRunner.class);

    /** The function run; returning false or throwing means "failed, retry". */
    @FunctionalInterface
    public interface SyncFunction {
        boolean sync() throws Exception;
    }

    private final String name;
    private final SyncFunction fn;
    private final Duration minInterval;
    private final Duration retryInterval;
    /** The retry interval doubles at most this often while runs keep failing. */
    static final int MAX_BACKOFF_DOUBLINGS = 2;
    private int failuresInARow;
    private final Duration maxInterval;
    private final Scheduler scheduler;

    private final Object lock = new Object();
    private boolean started;
    private boolean stopped;
    private boolean queued;
    private boolean running;
    private boolean coolingDown;
    private boolean pending;
    private boolean continueNow;
    private Scheduler.Cancellable nextRun;
    /** Ends the cool-down that began when the current or last run started. */
    private Scheduler.Cancellable coolDown;

    public BoundedFrequencyRunner(String name, SyncFunction fn, Duration minInterval, Duration retryInterval,
                                  Duration maxInterval, Scheduler scheduler) {
        this.name = Objects.requireNonNull(name);
        this.fn = Objects.requireNonNull(fn);
        this.minInterval = Objects.requireNonNull(minInterval);
        this.retryInterval = Objects.requireNonNull(retryInterval);
        this.maxInterval = Objects.requireNonNull(maxInterval);
        this.scheduler = Objects.requireNonNull(scheduler);
        if (maxInterval.compareTo(minInterval) < 0) {
            throw new IllegalArgumentException(name + ": maxInterval (" + maxInterval
                    + ") must be >= minInterval (" + minInterval + ")");
        }
        if (minInterval.isNegative() || retryInterval.isNegative()) {
            throw new IllegalArgumentException(name + ": intervals must not be negative");
        }
    }

    /** Arms the periodic timer. Idempotent. */
    public void start() {
        synchronized (lock) {
            if (started || stopped) {
                return;
            }
            started = true;
            nextRun = scheduler.schedule(maxInterval, this::run);
        }
    }

    /** Asks for a run as soon as the rate limit allows; never blocks. Ignored after {@link #stop()}. */
    public void run() {
        synchronized (lock) {
            if (stopped || !started) {
                return;
            }
            if (running || coolingDown) {
                pending = true;
                return;
            }
            if (!queued) {
                queued = true;
                scheduler.schedule(Duration.ZERO, this::execute);
            }
        }
    }

    /**
     * Called by the function during a run that did part of its work (a bounded sync): the next run starts as soon as
     * this one ends, without the {@code minInterval} cool-down.
     */
    public void continueNow() {
        synchronized (lock) {
            continueNow = true;
        }
    }

    /** Cancels the timers; a run in progress finishes, no further run starts. */
    public void stop() {
        synchronized (lock) {
            stopped = true;
            cancelNextRun();
        }
    }

    private void execute() {
        synchronized (lock) {
            queued = false;
            pending = false;
            if (stopped) {
                return;
            }
            cancelNextRun();
            running = true;
            // The cool-down starts with the run (not after it): the next run may start minInterval after this one
            // started. On the single scheduler thread the timer cannot fire before this run has returned.
            if (coolDown != null) {
                coolDown.cancel();
            }
            coolingDown = true;
            coolDown = scheduler.schedule(minInterval, this::coolDownEnded);
        }
        boolean ok;
        try {
            ok = fn.sync();
        } catch (Exception | LinkageError | AssertionError e) {
            logger.atError().setMessage("Run failed").addKeyValue("runner", name).setCause(e).log();
            ok = false;
        }
        synchronized (lock) {
            running = false;
            if (stopped) {
                return;
            }
            if (continueNow) {
                continueNow = false;
                pending = false;
                queued = true;
                scheduler.schedule(Duration.ZERO, this::execute);
                return;
            }
            // Failures in a row back off: retryInterval, twice it, four times it (then stay), never beyond
            // maxInterval. An outage (HNS restarting, say) is retried promptly at first without hammering it.
            failuresInARow = ok ? 0 : failuresInARow + 1;
            Duration next = ok ? maxInterval
                    : min(retryInterval.multipliedBy(1L << Math.min(failuresInARow - 1, MAX_BACKOFF_DOUBLINGS)),
                            maxInterval);
            nextRun = scheduler.schedule(next, this::run);
            if (!pending || coolingDown) {
                return;
            }
            // The run took longer than minInterval: what it coalesced runs at once.
            pending = false;
            queued = true;
            scheduler.schedule(Duration.ZERO, this::execute);
        }
    }

    private void coolDownEnded() {
        synchronized (lock) {
            coolingDown = false;
            if (stopped || !pending || running || queued) {
                return;
            }
            pending = false;
            queued = true;
        }
        execute();
    }

    private void cancelNextRun() {
        if (nextRun != null) {
            nextRun.cancel();
            nextRun = null;
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
