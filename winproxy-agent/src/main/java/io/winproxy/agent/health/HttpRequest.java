package io.winproxy.agent.health;

import java.util.Objects;

/**
 * One parsed HTTP request head as the agent's servers need it: the method, the decoded path (no query) and the
 * {@code Accept} header (lower-case, "" when absent; the z-pages negotiate on it). Bodies are never read: a request
 * announcing one is answered and its connection then closed.
 */
public record HttpRequest(String method, String path, String accept) {
    public HttpRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        accept = accept == null ? "" : accept;
    }

    public HttpRequest(String method, String path) {
        this(method, path, "");
    }

    public boolean isHead() {
        return "HEAD".equalsIgnoreCase(method);
    }
}
