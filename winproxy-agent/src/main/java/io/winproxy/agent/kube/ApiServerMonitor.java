package io.winproxy.agent.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.winproxy.agent.DaemonThreads;
import io.winproxy.agent.Messages;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the operator, in a handful of lines of winproxy's own, when the API server is unreachable or failing, and
 * makes the informers catch up at once when it answers again.
 *
 * <p>An outage starts with the first failure signal: a request of the Kubernetes client that got no answer or a 5xx
 * (from the {@link ApiRequestListener} transport hook, which also sees fabric8's silent watch reconnects), a watch
 * answered 404, or a list/watch failure an informer reports (e.g. 404 for an API a mixed-version control plane does
 * not serve). One WARN line says which API server and what failed, and that Services and EndpointSlices are served
 * from the last known state; while it lasts, one reminder a {@code reminderInterval} gives the duration so far.
 *
 * <p>During an outage every registered {@link Target} is probed (one cheap list, limit 1, from the watch cache) each
 * {@code probeInterval} with ±20% jitter. When all probes succeed, one INFO line gives the outage's duration and every
 * target relists at once, instead of waiting out fabric8's reconnect backoff (up to 30 s).
 *
 * <p>Thread-safe. Signals may arrive on any thread; probes and relists run on the monitor's own thread.
 */
public final class ApiServerMonitor implements ApiRequestListener, AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(ApiServerMonitor.class);

    /** Default pause between probes during an outage (before jitter). */
    public static final Duration PROBE_INTERVAL = Duration.ofSeconds(5);
    /** Default pause between reminders during an outage. */
    public static final Duration REMINDER_INTERVAL = Duration.ofMinutes(1);
    private static final Duration TICK = Duration.ofMillis(500);
    private static final String SERVED_FROM_CACHE = "Services and EndpointSlices are served from the last known state";

    /** What the monitor probes during an outage and relists after it. */
    public interface Target {
        /** A short name for log lines, e.g. "EndpointSlices". */
        String kind();

        /** One cheap request that succeeds only when this kind can be listed again; throws otherwise. */
        void probe();

        /** Lists and watches again now (the API server answers again). */
        void relist();
    }

    private final String server;
    private final Pacing pacing;
    private final List<Target> targets = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private ScheduledExecutorService scheduler;

    // guarded by lock
    private Instant outageSince;
    private String lastCause;
    private Instant nextProbe;
    private Instant nextReminder;
    private boolean probing;

    /**
     * How the monitor paces itself during an outage.
     *
     * @param probeInterval    the pause between probes, before ±20% jitter
     * @param reminderInterval the pause between reminders
     * @param random           a number in {@code [0, 1)} (the jitter)
     */
    public record Pacing(Clock clock, Duration probeInterval, Duration reminderInterval, DoubleSupplier random) {
        /** The system clock, {@link #PROBE_INTERVAL}, {@link #REMINDER_INTERVAL} and {@link Math#random()}. */
        public static final Pacing DEFAULT = new Pacing(Clock.systemUTC(), PROBE_INTERVAL, REMINDER_INTERVAL,
                Math::random);

        /** The pause before the next probe: the probe interval, ±20% at random. */
        Duration jitteredProbeInterval() {
            double factor = 0.8 + 0.4 * random.getAsDouble();
            return Duration.ofMillis(Math.round(probeInterval.toMillis() * factor));
        }
    }

    /** @param server the API server URL as it may be logged (no credentials) */
    public ApiServerMonitor(String server, Pacing pacing) {
        this.server = server;
        this.pacing = pacing;
    }

    /** With the default intervals and the system clock. */
    public ApiServerMonitor(String server) {
        this(server, Pacing.DEFAULT);
    }

    public void register(Target target) {
        targets.add(target);
    }

    /** Starts the monitor's thread (ticks twice a second; probes only during an outage). */
    public synchronized void start() {
        if (scheduler == null) {
            scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("winproxy-api-monitor"));
            scheduler.scheduleWithFixedDelay(this::tickSafely, TICK.toMillis(), TICK.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }

    /** Whether an outage is in progress. */
    public boolean inOutage() {
        synchronized (lock) {
            return outageSince != null;
        }
    }

    /**
     * The transport hook: a read (list, watch, get) without an answer, answered 5xx, or a watch answered 404 is a
     * failure signal. Writes (Event POSTs) are not: an admission webhook refusing Events is no API outage, and must
     * not make every node relist everything.
     */
    @Override
    public void completed(ApiRequest request) {
        if (!"GET".equalsIgnoreCase(request.method())) {
            return;
        }
        if (request.status() == 0) {
            failed(describe(request.failure()) + " (" + request.method() + " " + path(request) + ")");
        } else if (request.status() >= 500 || request.status() == 404 && request.watch()) {
            failed("answers " + request.status() + " to " + request.method() + " " + path(request));
        }
    }

    /** An informer's list or watch failed with {@code failure}. */
    public void informerFailed(String kind, Throwable failure) {
        failed(describe(failure) + " (listing/watching " + kind + ")");
    }

    private void failed(String cause) {
        synchronized (lock) {
            lastCause = cause;
            if (outageSince != null) {
                return;
            }
            Instant now = pacing.clock().instant();
            outageSince = now;
            nextProbe = now.plus(pacing.jitteredProbeInterval());
            nextReminder = now.plus(pacing.reminderInterval());
        }
        if (cause.startsWith("answers")) {
            logger.atWarn().setMessage("The API server answers with an error; " + SERVED_FROM_CACHE)
                    .addKeyValue("server", server).addKeyValue("answer", cause.substring("answers ".length())).log();
        } else {
            logger.atWarn().setMessage("Cannot reach the API server; " + SERVED_FROM_CACHE)
                    .addKeyValue("server", server).addKeyValue("err", cause).log();
        }
    }

    private void tickSafely() {
        try {
            tick();
        } catch (RuntimeException e) {
            logger.atDebug().setMessage("API server monitor tick failed").setCause(e).log();
        }
    }

    /** Gives a reminder and probes when they are due. Runs on the monitor's thread (tests call it directly). */
    void tick() {
        Instant now = pacing.clock().instant();
        boolean probeNow;
        synchronized (lock) {
            if (outageSince == null || probing) {
                return;
            }
            if (!now.isBefore(nextReminder)) {
                logger.atWarn().setMessage("The API server is still unavailable; " + SERVED_FROM_CACHE)
                        .addKeyValue("server", server)
                        .addKeyValue("unavailableFor", format(Duration.between(outageSince, now)))
                        .addKeyValue("err", lastCause).log();
                nextReminder = now.plus(pacing.reminderInterval());
            }
            probeNow = !now.isBefore(nextProbe);
            probing = probeNow;
        }
        if (probeNow) {
            probe();
        }
    }

    private void probe() {
        String failure = null;
        for (Target target : targets) {
            try {
                target.probe();
            } catch (RuntimeException e) {
                failure = describe(e) + " (listing " + target.kind() + ")";
                break;
            }
        }
        Instant since;
        synchronized (lock) {
            probing = false;
            Instant now = pacing.clock().instant();
            if (failure != null) {
                lastCause = failure;
                nextProbe = now.plus(pacing.jitteredProbeInterval());
                return;
            }
            since = outageSince;
            outageSince = null;
            lastCause = null;
        }
        logger.atInfo().setMessage("The API server answers again; relisting now").addKeyValue("server", server)
                .addKeyValue("unavailableFor", format(Duration.between(since, pacing.clock().instant())))
                .addKeyValue("relisting", targets.stream().map(Target::kind).toList()).log();
        for (Target target : targets) {
            try {
                target.relist();
            } catch (RuntimeException e) {
                logger.atDebug().setMessage("Relisting failed").addKeyValue("kind", target.kind()).setCause(e).log();
            }
        }
    }

    private static String path(ApiRequest request) {
        return request.uri() == null ? "" : request.uri().getRawPath();
    }

    /** What failed, in a few words: "connection refused", "answers 503", "timed out", ... */
    static String describe(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof KubernetesClientException k && k.getCode() > 0) {
                return "answers " + k.getCode() + (k.getStatus() != null && k.getStatus().getReason() != null
                        ? " (" + k.getStatus().getReason() + ")" : "");
            }
            if (t instanceof ConnectException) {
                return "connection refused";
            }
            if (t instanceof HttpTimeoutException || t instanceof java.net.SocketTimeoutException) {
                return "timed out";
            }
            if (t instanceof UnknownHostException) {
                return "unknown host " + t.getMessage();
            }
            if (t instanceof NoRouteToHostException) {
                return "no route to host";
            }
            if (t instanceof SSLException) {
                return "TLS failure: " + Messages.firstLine(t.getMessage(), "");
            }
        }
        if (failure == null) {
            return "no answer";
        }
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return Messages.firstLine(root.getMessage(), root.getClass().getSimpleName());
    }

    /** {@code 15s}, {@code 2m05s}, {@code 1h02m03s}. */
    static String format(Duration duration) {
        long s = Math.max(0, duration.toSeconds());
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm%02ds", s / 3600, s % 3600 / 60, s % 60);
    }
}
