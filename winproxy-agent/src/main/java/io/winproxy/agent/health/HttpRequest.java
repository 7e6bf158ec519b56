package io.winproxy.agent.health;

import java.util.Objects;

/**
 * One parsed HTTP request head as the agent's servers need it: the method and the decoded path (no query). Bodies
 * are never read: a request announcing one is answered and its connection then closed.
 */
public record HttpRequest(String method, String path) {
    public HttpRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
    }

    public boolean isHead() {
        return "HEAD".equalsIgnoreCase(method);
    }
}
