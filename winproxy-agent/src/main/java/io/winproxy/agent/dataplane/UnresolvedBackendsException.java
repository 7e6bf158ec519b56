package io.winproxy.agent.dataplane;

/** Some backends of a load balancer have no HNS endpoint (yet); not an HNS error, retried by the next sync. */
final class UnresolvedBackendsException extends RuntimeException {
    UnresolvedBackendsException(String message) {
        super(message);
    }
}
