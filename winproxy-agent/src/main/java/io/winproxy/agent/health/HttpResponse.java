package io.winproxy.agent.health;

import java.util.Map;
import java.util.Objects;

/**
 * A complete response of a small handler: status, content type, body and extra headers. The server adds
 * {@code Content-Length} and {@code Date}; for HEAD it sends the headers only (with the body's length).
 */
public record HttpResponse(int status, String contentType, byte[] body, Map<String, String> headers) {
    public HttpResponse {
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(body, "body");
        headers = Map.copyOf(headers);
    }
}
