package io.winproxy.agent.health;

import io.winproxy.agent.kube.EventRecorder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node-wide listener of the agent (the proxy health server, the metrics server) that an empty bind address
 * disables, as in kube-proxy. A failed bind becomes a Warning event on the Node with {@code failureReason}, then a
 * retry or, with {@code hardFail}, a {@link BindFailedException} from {@link #start()}.
 */
public final class NodeListener implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(NodeListener.class);

    private final SupervisedListener listener;
    private final boolean hardFail;
    private final String disabledMessage;

    /**
     * @param bindAddress     null disables the listener
     * @param disabledMessage logged by {@link #start()} when disabled
     */
    public NodeListener(String description, BindAddress bindAddress, HttpHandler handler, boolean hardFail,
                        Duration retryInterval, String nodeName, EventRecorder events, String failureReason,
                        String disabledMessage) {
        this.listener = bindAddress == null ? null : new SupervisedListener(description, bindAddress, handler,
                retryInterval, message -> events.event("Node", "", nodeName, "Warning", failureReason, message));
        this.hardFail = hardFail;
        this.disabledMessage = disabledMessage;
    }

    public boolean enabled() {
        return listener != null;
    }

    /**
     * Starts listening; only logs when disabled.
     *
     * @throws BindFailedException when the bind fails and {@code hardFail} is set (exit 1)
     */
    public void start() {
        if (listener != null) {
            listener.start(hardFail);
        } else {
            logger.atInfo().setMessage(disabledMessage).log();
        }
    }

    /** The bound address, once listening. */
    public Optional<InetSocketAddress> boundAddress() {
        return listener == null ? Optional.empty() : listener.boundAddress();
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close();
        }
    }
}
