package io.winproxy.agent.kube;

import java.net.URI;
import java.time.Duration;

/**
 * The outcome of one HTTP request to the API server, as the transport saw it.
 *
 * @param method  the HTTP method ({@code GET}, {@code POST}, ...)
 * @param uri     the request URI (never logged with its query: it may carry selectors, never credentials)
 * @param status  the HTTP status of the answer (101 for an accepted WebSocket upgrade), or 0 when no answer came
 * @param failure why no answer came (connection refused, timeout, ...); null when {@code status > 0}
 * @param latency from sending the request until the answer's headers (or the failure)
 * @param watch   a watch request ({@code watch=true}): its answer opens a stream that lasts minutes
 */
public record ApiRequest(String method, URI uri, int status, Throwable failure, Duration latency, boolean watch) {

    /** client-go's {@code code} label: the status as a number, or {@code <error>} when there was no answer. */
    public String code() {
        return status > 0 ? Integer.toString(status) : "<error>";
    }

    /** client-go's {@code host} label: {@code host[:port]} of the URL. */
    public String host() {
        return hostOf(uri);
    }

    /** {@code host[:port]} of {@code uri} (IPv6 literals keep their brackets), without user info. */
    static String hostOf(URI uri) {
        if (uri == null || uri.getHost() == null) {
            return "";
        }
        return uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
    }

    /** Whether the query string asks for a watch. */
    static boolean isWatch(URI uri) {
        String query = uri == null ? null : uri.getRawQuery();
        if (query == null) {
            return false;
        }
        for (String part : query.split("&")) {
            if (part.equals("watch=true") || part.equals("watch=1")) {
                return true;
            }
        }
        return false;
    }
}
