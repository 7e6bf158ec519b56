package io.winproxy.agent.health;

/** Answers one request of the agent's HTTP servers; runs on a connection thread and must not block for long. */
@FunctionalInterface
public interface HttpHandler {
    HttpResponse handle(HttpRequest request);
}
