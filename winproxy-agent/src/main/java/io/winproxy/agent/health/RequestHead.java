package io.winproxy.agent.health;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A parsed HTTP/1.x request head.
 *
 * @param request   method and decoded path, or null when the head was malformed (answer 400 and close)
 * @param keepAlive whether the connection may carry another request after this one's response
 */
record RequestHead(HttpRequest request, boolean keepAlive) {

    /** Thrown when the head does not arrive whole in time or is too long; the connection is then closed. */
    static final class HeadRejected extends IOException {
        HeadRejected(String message) {
            super(message);
        }
    }

    /**
     * Reads one head from {@code in}, giving each read at most the time left before the deadline.
     *
     * @param remainingMillis the time left for this head (read before every blocking read)
     * @param setReadTimeout  applies a read timeout in milliseconds to the underlying socket
     * @return the head, or null when the client closed the connection before sending a byte
     * @throws HeadRejected when the deadline passes or the head exceeds {@code maxBytes}
     */
    static RequestHead read(InputStream in, int maxBytes, LongSupplier remainingMillis, IntTimeout setReadTimeout)
            throws IOException {
        StringBuilder line = new StringBuilder();
        String requestLine = null;
        boolean close = false;
        boolean hasBody = false;
        String accept = "";
        int total = 0;
        while (true) {
            long remaining = remainingMillis.getAsLong();
            if (remaining <= 0) {
                throw new HeadRejected("request head timed out");
            }
            setReadTimeout.apply((int) Math.min(Integer.MAX_VALUE, remaining));
            int b;
            try {
                b = in.read();
            } catch (SocketTimeoutException e) {
                throw new HeadRejected("request head timed out");
            }
            if (b < 0) {
                if (requestLine == null && total == 0) {
                    return null;
                }
                throw new HeadRejected("connection closed inside a request head");
            }
            if (++total > maxBytes) {
                throw new HeadRejected("request head longer than " + maxBytes + " bytes");
            }
            if (b != '\n') {
                line.append((char) b);
                continue;
            }
            int end = line.length() > 0 && line.charAt(line.length() - 1) == '\r' ? line.length() - 1 : line.length();
            String text = line.substring(0, end);
            line.setLength(0);
            if (requestLine == null) {
                if (!text.isEmpty()) {
                    requestLine = text;
                }
                continue;
            }
            if (text.isEmpty()) {
                return of(requestLine, close, hasBody, accept);
            }
            int colon = text.indexOf(':');
            if (colon <= 0) {
                return new RequestHead(null, false);
            }
            String name = text.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = text.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
            if (name.equals("accept")) {
                accept = accept.isEmpty() ? value : accept + "," + value;
            } else if (name.equals("connection") && value.contains("close")) {
                close = true;
            } else if (name.equals("transfer-encoding") || (name.equals("content-length") && !value.equals("0"))) {
                hasBody = true;
            }
        }
    }

    private static RequestHead of(String requestLine, boolean close, boolean hasBody, String accept) {
        String[] parts = new String(requestLine.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8)
                .split(" ");
        if (parts.length != 3 || parts[0].isEmpty() || !parts[2].startsWith("HTTP/1.")) {
            return new RequestHead(null, false);
        }
        String path = path(parts[1]);
        if (path == null) {
            return new RequestHead(null, false);
        }
        String query = query(parts[1]);
        // Bodies are never read, so a request with one ends its connection; HTTP/1.0 closes by default.
        boolean keepAlive = parts[2].equals("HTTP/1.1") && !close && !hasBody;
        return new RequestHead(new HttpRequest(parts[0], path, accept, query), keepAlive);
    }

    /** The decoded path of an origin-form or absolute-form target; null when it is not a valid URI. */
    private static String path(String target) {
        try {
            URI uri = target.startsWith("/") ? new URI("http://h" + target) : new URI(target);
            String path = uri.getPath();
            return path == null || path.isEmpty() ? "/" : path;
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /** The decoded query of a target ("" when none or not a valid URI). */
    private static String query(String target) {
        try {
            URI uri = target.startsWith("/") ? new URI("http://h" + target) : new URI(target);
            return uri.getQuery() == null ? "" : uri.getQuery();
        } catch (URISyntaxException e) {
            return "";
        }
    }

    /** Sets a socket read timeout. */
    @FunctionalInterface
    interface IntTimeout {
        void apply(int millis) throws IOException;
    }
}
