package io.winproxy.agent.health;

import java.util.Objects;

/**
 * One parsed HTTP request head as the agent's servers need it: the method, the decoded path, the
 * {@code Accept} header (lower-case, "" when absent; the z-pages negotiate on it) and the decoded query ("" when none;
 * only {@code /status/services} reads it). Bodies are never read: a request announcing one is answered and its
 * connection then closed.
 */
public record HttpRequest(String method, String path, String accept, String query) {
    public HttpRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        accept = accept == null ? "" : accept;
        query = query == null ? "" : query;
    }

    public HttpRequest(String method, String path, String accept) {
        this(method, path, accept, "");
    }

    /** The value of one query parameter ({@code a=1&b=2}), or null when absent. */
    public String parameter(String name) {
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            if (key.equals(name)) {
                return eq < 0 ? "" : pair.substring(eq + 1);
            }
        }
        return null;
    }

    public HttpRequest(String method, String path) {
        this(method, path, "");
    }

    public boolean isHead() {
        return "HEAD".equalsIgnoreCase(method);
    }
}
