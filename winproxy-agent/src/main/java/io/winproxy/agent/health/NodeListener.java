package io.winproxy.agent.health;

import io.winproxy.agent.kube.EventRecorder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node-wide listener of the agent (the proxy health server, the metrics server) that an empty bind address
 * disables, as in kube-proxy. A failed bind becomes a Warning event on the Node with {@code failureReason}, then a
 * retry or, with {@code hardFail}, a {@link BindFailedException} from {@link #start()}. The servers extend it and
 * answer requests in {@link #handle}, which runs on connection threads (never before {@link #start()}).
 */
public abstract class NodeListener implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(NodeListener.class);

    private final SupervisedListener listener;
    private final boolean hardFail;
    private final String disabledMessage;

    /**
     * @param bindAddress     null disables the listener
     * @param disabledMessage logged by {@link #start()} when disabled
     */
    protected NodeListener(String description, BindAddress bindAddress, boolean hardFail, Duration retryInterval,
                           String nodeName, EventRecorder events, String failureReason, String disabledMessage) {
        Objects.requireNonNull(events, "events");
        this.listener = bindAddress == null ? null : new SupervisedListener(description, bindAddress, this::handle,
                retryInterval, message -> events.event("Node", "", nodeName, "Warning", failureReason, message));
        this.hardFail = hardFail;
        this.disabledMessage = disabledMessage;
    }

    /** False when the bind address is empty: nothing listens. */
    public final boolean enabled() {
        return listener != null;
    }

    /**
     * Starts listening; only logs when disabled.
     *
     * @throws BindFailedException when the bind fails and {@code hardFail} is set (exit 1)
     */
    public final void start() {
        if (listener != null) {
            listener.start(hardFail);
        } else {
            logger.atInfo().setMessage(disabledMessage).log();
        }
    }

    /** The bound address, once listening. */
    public final Optional<InetSocketAddress> boundAddress() {
        return listener == null ? Optional.empty() : listener.boundAddress();
    }

    @Override
    public final void close() {
        if (listener != null) {
            listener.close();
        }
    }

    /** Answers one request; runs on a connection thread (see {@link HttpHandler}). */
    protected abstract HttpResponse handle(HttpRequest request);
}
