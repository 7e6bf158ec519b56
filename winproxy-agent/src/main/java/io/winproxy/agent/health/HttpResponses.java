package io.winproxy.agent.health;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** Builds responses the way Go's net/http does for small handlers ({@code X-Content-Type-Options: nosniff}). */
public final class HttpResponses {

    public static final String JSON = "application/json";
    public static final String TEXT = "text/plain; charset=utf-8";

    private HttpResponses() {
    }

    /** {@code status} with a UTF-8 {@code body}, {@code nosniff} and the given headers. */
    public static HttpResponse of(int status, String contentType, String body, Map<String, String> extraHeaders) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Content-Type-Options", "nosniff");
        headers.putAll(extraHeaders);
        return new HttpResponse(status, contentType, body.getBytes(StandardCharsets.UTF_8), headers);
    }

    /** Go's default 404: {@code 404 page not found\n} as UTF-8 text. */
    public static HttpResponse notFound() {
        return of(404, TEXT, "404 page not found\n", Map.of());
    }
}
