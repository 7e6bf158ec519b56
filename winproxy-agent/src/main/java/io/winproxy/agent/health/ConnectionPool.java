package io.winproxy.agent.health;

import io.winproxy.agent.DaemonThreads;
import java.io.IOException;
import java.net.Socket;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connections of one or more agent HTTP listeners, each served on its own thread, within {@link ServerLimits}.
 *
 * <p>Contract: a connection never waits for another. At most {@code maxConnections} are open; a connection accepted
 * beyond that evicts the one that has waited longest for its request head (an idle or slow client), or is closed at
 * once when all are being answered. A reaper closes every connection whose head or response is overdue. Threads
 * are created on demand (at most twice {@code maxConnections}, counting evicted ones still unwinding) and end after
 * 30 s idle. So a probe is answered within milliseconds whatever number of idle or slow clients is connected.
 *
 * <p>An {@link Error} thrown on a connection or reaper thread is not caught here: it reaches the thread's uncaught
 * exception handler (the agent's fatal-error handler). Thread-safe.
 */
public final class ConnectionPool implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(ConnectionPool.class);
    private static final long REAP_INTERVAL_MILLIS = 100;

    private final String name;
    private final ServerLimits limits;
    private final ThreadPoolExecutor threads;
    private final Set<HttpConnection> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger evicted = new AtomicInteger();
    private final Thread reaper;
    private volatile boolean closed;

    /** @param name names the threads, e.g. {@code proxy healthz} */
    public ConnectionPool(String name, ServerLimits limits) {
        this.name = Objects.requireNonNull(name, "name");
        this.limits = Objects.requireNonNull(limits, "limits");
        this.threads = new ThreadPoolExecutor(0, 2 * limits.maxConnections(), 30, TimeUnit.SECONDS,
                new SynchronousQueue<>(), DaemonThreads.named(name + " http"));
        this.reaper = DaemonThreads.named(name + " http reaper").newThread(this::reapLoop);
        reaper.start();
    }

    public ServerLimits limits() {
        return limits;
    }

    /** Connections open now. */
    public int openConnections() {
        return open.size();
    }

    /** Connections closed at once because every slot was busy answering. */
    public int refusedConnections() {
        return refused.get();
    }

    /** Idle or slow connections closed to make room for a new one. */
    public int evictedConnections() {
        return evicted.get();
    }

    /**
     * Serves {@code socket} with {@code handler} on its own thread, or closes it (see the class contract).
     *
     * @param owner the listener that accepted it, for {@link #abortAll(Object)}
     */
    public void admit(Socket socket, HttpHandler handler, Object owner) {
        HttpConnection connection = new HttpConnection(socket, handler, limits, owner, this::finished);
        HttpConnection victim = null;
        synchronized (this) {
            if (closed) {
                closeQuietly(socket);
                return;
            }
            if (open.size() >= limits.maxConnections()) {
                victim = longestWaiting();
                if (victim == null) {
                    refused.incrementAndGet();
                    closeQuietly(socket);
                    return;
                }
                open.remove(victim);
                evicted.incrementAndGet();
            }
            open.add(connection);
        }
        if (victim != null) {
            logger.debug("{}: closing an idle connection to admit a new one remote={}", name, victim.remote());
            victim.abort();
        }
        try {
            threads.execute(connection);
        } catch (RejectedExecutionException e) {
            open.remove(connection);
            refused.incrementAndGet();
            connection.abort();
        }
    }

    /** Closes every open connection accepted by {@code owner} (a listener being closed). */
    public void abortAll(Object owner) {
        for (HttpConnection connection : open) {
            if (connection.owner() == owner) {
                open.remove(connection);
                connection.abort();
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        reaper.interrupt();
        open.forEach(HttpConnection::abort);
        open.clear();
        threads.shutdownNow();
    }

    private HttpConnection longestWaiting() {
        HttpConnection oldest = null;
        for (HttpConnection connection : open) {
            if (connection.awaitingHead()
                    && (oldest == null || connection.phaseStartNanos() - oldest.phaseStartNanos() < 0)) {
                oldest = connection;
            }
        }
        return oldest;
    }

    private void finished(HttpConnection connection) {
        open.remove(connection);
    }

    private void reapLoop() {
        while (!closed) {
            try {
                Thread.sleep(REAP_INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (HttpConnection connection : open) {
                if (connection.overdue(now)) {
                    open.remove(connection);
                    connection.abort();
                }
            }
        }
    }

    static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing to do: the socket is gone either way
        }
    }
}
