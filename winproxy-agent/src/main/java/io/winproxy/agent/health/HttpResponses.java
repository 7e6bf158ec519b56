package io.winproxy.agent.health;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Writes complete responses the way Go's net/http does for small handlers (Content-Length, body also for HEAD). */
public final class HttpResponses {

    public static final String JSON = "application/json";
    public static final String TEXT = "text/plain; charset=utf-8";

    private HttpResponses() {
    }

    /**
     * Sends {@code status} with {@code body}, {@code X-Content-Type-Options: nosniff} and the given headers, then
     * closes the exchange. For HEAD only the headers (with the body's Content-Length) are sent.
     */
    public static void send(HttpExchange exchange, int status, String contentType, String body,
                            Map<String, String> extraHeaders) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        try (exchange) {
            var headers = exchange.getResponseHeaders();
            headers.set("Content-Type", contentType);
            headers.set("X-Content-Type-Options", "nosniff");
            extraHeaders.forEach(headers::set);
            if ("HEAD".equalsIgnoreCase(exchange.getRequestMethod())) {
                headers.set("Content-Length", Integer.toString(bytes.length));
                exchange.sendResponseHeaders(status, -1);
                return;
            }
            exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** Go's default 404: {@code 404 page not found\n} as UTF-8 text. */
    public static void notFound(HttpExchange exchange) throws IOException {
        send(exchange, 404, TEXT, "404 page not found\n", Map.of());
    }
}
