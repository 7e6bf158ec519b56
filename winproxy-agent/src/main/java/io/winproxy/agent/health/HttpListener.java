package io.winproxy.agent.health;

import io.winproxy.agent.DaemonThreads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bound TCP listener whose accepted connections go to a {@link ConnectionPool}; the one HTTP server plumbing of
 * the proxy health server, the per-service health checks and the metrics server. The accept thread never reads
 * from a client, so accepting never waits behind one. {@link #close()} stops accepting and closes the connections
 * this listener accepted.
 */
public final class HttpListener implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(HttpListener.class);
    private static final int BACKLOG = 128;

    private final ServerSocket serverSocket;
    private final Thread acceptor;
    private final ConnectionPool pool;
    private boolean closed;

    private HttpListener(ServerSocket serverSocket, String name, HttpHandler handler, ConnectionPool pool) {
        this.serverSocket = serverSocket;
        this.pool = pool;
        this.acceptor = DaemonThreads.named(name + " accept").newThread(() -> acceptLoop(handler, pool));
    }

    /**
     * Binds {@code address} and starts accepting.
     *
     * @throws IOException when the bind fails
     */
    public static HttpListener open(InetSocketAddress address, String name, HttpHandler handler, ConnectionPool pool)
            throws IOException {
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(pool, "pool");
        ServerSocket socket = new ServerSocket();
        try {
            socket.setReuseAddress(!System.getProperty("os.name", "").startsWith("Windows"));
            socket.bind(address, BACKLOG);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
        HttpListener listener = new HttpListener(socket, name, handler, pool);
        listener.acceptor.start();
        return listener;
    }

    /** The bound address (with the real port when 0 was asked). */
    public InetSocketAddress address() {
        return (InetSocketAddress) serverSocket.getLocalSocketAddress();
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        try {
            serverSocket.close();
        } catch (IOException e) {
            logger.debug("closing listener address={} error={}", address(), e.toString());
        }
        pool.abortAll(this);
    }

    private void acceptLoop(HttpHandler handler, ConnectionPool pool) {
        while (true) {
            Socket socket;
            try {
                socket = serverSocket.accept();
            } catch (IOException e) {
                if (isClosed()) {
                    return;
                }
                // e.g. out of file descriptors: back off briefly instead of spinning
                logger.warn("accept failed address={} error={}", serverSocket.getLocalSocketAddress(), e.toString());
                sleepQuietly();
                continue;
            }
            // A blocked accept(2) can still return a connection after close(): admit only while open, under the
            // lock close() takes, so that close() never misses a connection.
            synchronized (this) {
                if (closed) {
                    ConnectionPool.closeQuietly(socket);
                    return;
                }
                pool.admit(socket, handler, this);
            }
        }
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    private static void sleepQuietly() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
