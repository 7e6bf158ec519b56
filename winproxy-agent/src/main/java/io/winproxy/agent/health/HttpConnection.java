package io.winproxy.agent.health;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: reads request heads within {@link ServerLimits#headTimeout()}, answers each with the
 * handler, keeps the connection for the next request when HTTP/1.1 allows it. Runs on its own thread; any other
 * thread may {@link #abort()} it. Handler exceptions become a 500; an {@link Error} propagates to the thread.
 */
final class HttpConnection implements Runnable {
    private static final Logger logger = LoggerFactory.getLogger(HttpConnection.class);

    private static final int AWAITING_HEAD = 0;
    private static final int HANDLING = 1;
    private static final int WRITING = 2;

    private final Socket socket;
    private final HttpHandler handler;
    private final ServerLimits limits;
    private final Object owner;
    private final Consumer<HttpConnection> onFinished;
    private final SocketAddress remote;
    private volatile int phase = AWAITING_HEAD;
    private volatile long phaseStart = System.nanoTime();

    HttpConnection(Socket socket, HttpHandler handler, ServerLimits limits, Object owner,
                   Consumer<HttpConnection> onFinished) {
        this.owner = owner;
        this.socket = socket;
        this.handler = handler;
        this.limits = limits;
        this.onFinished = onFinished;
        this.remote = socket.getRemoteSocketAddress();
    }

    Object owner() {
        return owner;
    }

    SocketAddress remote() {
        return remote;
    }

    boolean awaitingHead() {
        return phase == AWAITING_HEAD;
    }

    long phaseStartNanos() {
        return phaseStart;
    }

    /** Whether the head or the response is late at {@code nowNanos} (the handler's own time is not limited). */
    boolean overdue(long nowNanos) {
        long elapsed = nowNanos - phaseStart;
        return switch (phase) {
            case AWAITING_HEAD -> elapsed > limits.headTimeout().toNanos();
            case WRITING -> elapsed > limits.writeTimeout().toNanos();
            default -> false;
        };
    }

    /** Closes the socket; the connection's thread ends at its next read or write. */
    void abort() {
        ConnectionPool.closeQuietly(socket);
    }

    @Override
    public void run() {
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(socket.getInputStream(), 1024);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 8 * 1024);
            boolean keepAlive = true;
            boolean first = true;
            while (keepAlive) {
                // The first head's deadline counts from the accept (the connection starts AWAITING_HEAD), later
                // ones from the end of the previous response.
                if (!first) {
                    enter(AWAITING_HEAD);
                }
                first = false;
                long deadline = phaseStart + limits.headTimeout().toNanos();
                RequestHead head = RequestHead.read(in, limits.maxHeadBytes(),
                        () -> (deadline - System.nanoTime()) / 1_000_000, socket::setSoTimeout);
                if (head == null) {
                    return;
                }
                enter(HANDLING);
                keepAlive = head.keepAlive();
                HttpResponse response = head.request() == null
                        ? HttpResponses.of(400, HttpResponses.TEXT, "400 Bad Request\n", Map.of())
                        : answer(head.request());
                enter(WRITING);
                write(out, head.request() != null && head.request().isHead(), response, keepAlive);
            }
        } catch (IOException e) {
            logger.trace("connection closed remote={} reason={}", remote, e.toString());
        } finally {
            onFinished.accept(this);
        }
    }

    private HttpResponse answer(HttpRequest request) {
        try {
            return handler.handle(request);
        } catch (RuntimeException e) {
            logger.warn("request failed method={} path={} error={}", request.method(), request.path(), e.toString());
            return HttpResponses.of(500, HttpResponses.TEXT, "500 Internal Server Error\n", Map.of());
        }
    }

    private void enter(int next) {
        phaseStart = System.nanoTime();
        phase = next;
    }

    private static void write(OutputStream out, boolean headOnly, HttpResponse response, boolean keepAlive)
            throws IOException {
        StringBuilder head = new StringBuilder(256);
        head.append("HTTP/1.1 ").append(response.status()).append(' ').append(reason(response.status()))
                .append("\r\nContent-Type: ").append(response.contentType())
                .append("\r\nContent-Length: ").append(response.body().length)
                .append("\r\nDate: ").append(DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(
                        ZoneOffset.UTC)));
        response.headers().forEach((name, value) -> head.append("\r\n").append(name).append(": ").append(value));
        if (!keepAlive) {
            head.append("\r\nConnection: close");
        }
        head.append("\r\n\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (!headOnly) {
            out.write(response.body());
        }
        out.flush();
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 500 -> "Internal Server Error";
            case 503 -> "Service Unavailable";
            default -> "Status";
        };
    }
}
