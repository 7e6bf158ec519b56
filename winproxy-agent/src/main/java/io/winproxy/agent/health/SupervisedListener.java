package io.winproxy.agent.health;

import io.winproxy.agent.DaemonThreads;
import io.winproxy.agent.logging.KlogRefs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP listener ({@link HttpListener} over its own {@link ConnectionPool}) with kube-proxy's bind-failure policy: a failed bind is
 * reported and either retried every {@code retryInterval} until it succeeds (the default) or, with
 * {@code bindAddressHardFail}, thrown as {@link BindFailedException} for the caller to exit.
 *
 * <p>Thread-safe. {@link #close()} stops the listener, its worker threads and any pending retry; it is idempotent.
 */
public final class SupervisedListener implements AutoCloseable {

    /** Upstream retries a failed listener every 5 s ({@code wait.Until(..., 5*time.Second)}). */
    public static final Duration DEFAULT_RETRY_INTERVAL = Duration.ofSeconds(5);

    private static final Logger logger = LoggerFactory.getLogger(SupervisedListener.class);

    private final String description;
    private final BindAddress address;
    private final HttpHandler handler;
    private final Duration retryInterval;
    private final Consumer<String> onBindFailure;
    private final ServerLimits limits;
    private HttpListener server;
    private ConnectionPool workers;
    private ScheduledExecutorService retrier;
    private ScheduledFuture<?> pendingRetry;
    private boolean started;
    private boolean closed;

    /**
     * @param description   what listens, for messages, e.g. {@code proxy healthz}
     * @param onBindFailure receives the one-line failure message (e.g. to emit a Warning event) on every failed bind
     */
    public SupervisedListener(String description, BindAddress address, HttpHandler handler, Duration retryInterval,
                              Consumer<String> onBindFailure) {
        this.description = Objects.requireNonNull(description, "description");
        this.address = Objects.requireNonNull(address, "address");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.retryInterval = Objects.requireNonNull(retryInterval, "retryInterval");
        this.onBindFailure = Objects.requireNonNull(onBindFailure, "onBindFailure");
        this.limits = ServerLimits.DEFAULT;
    }

    /**
     * Binds and starts serving. On failure the message {@code failed to start <description> on <address>: <error>}
     * goes to the failure consumer; then, with {@code hardFail}, this throws; otherwise a retry is scheduled and
     * this returns normally.
     *
     * @throws BindFailedException only when {@code hardFail} and the bind failed
     * @throws IllegalStateException when already started or closed
     */
    public synchronized void start(boolean hardFail) {
        if (started || closed) {
            throw new IllegalStateException(description + " listener already started or closed");
        }
        started = true;
        try {
            bind();
        } catch (IOException e) {
            String message = failureMessage(e);
            onBindFailure.accept(message);
            if (hardFail) {
                throw new BindFailedException(message, e);
            }
            logger.atWarn().setMessage(KlogRefs.capitalize(message))
                    .addKeyValue("retryEvery", retryInterval.toMillis() + "ms").log();
            retrier = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named(description + " bind retry"));
            pendingRetry = retrier.scheduleWithFixedDelay(this::retry, retryInterval.toMillis(),
                    retryInterval.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** The address actually bound (with the real port when 0 was asked), or empty while not listening. */
    public synchronized Optional<InetSocketAddress> boundAddress() {
        return server == null ? Optional.empty() : Optional.of(server.address());
    }

    public BindAddress address() {
        return address;
    }

    @Override
    public void close() {
        HttpListener toStop;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (pendingRetry != null) {
                pendingRetry.cancel(false);
            }
            if (retrier != null) {
                retrier.shutdownNow();
            }
            toStop = server;
            server = null;
        }
        if (toStop != null) {
            toStop.close();
        }
        synchronized (this) {
            if (workers != null) {
                workers.close();
            }
        }
    }

    private synchronized void retry() {
        if (closed || server != null) {
            return;
        }
        try {
            bind();
            pendingRetry.cancel(false);
            retrier.shutdown();
        } catch (IOException e) {
            String message = failureMessage(e);
            onBindFailure.accept(message);
            logger.atWarn().setMessage(KlogRefs.capitalize(message))
                    .addKeyValue("retryIn", retryInterval.toMillis() + "ms").log();
        }
    }

    private void bind() throws IOException {
        if (workers == null) {
            workers = new ConnectionPool(description, limits);
        }
        HttpListener created = HttpListener.open(address.socketAddress(), description, handler, workers);
        server = created;
        logger.atInfo().setMessage("Listening").addKeyValue("server", description)
                .addKeyValue("address", created.address()).log();
    }

    private String failureMessage(IOException e) {
        return "failed to start " + description + " on " + address + ": " + e.getMessage();
    }
}
