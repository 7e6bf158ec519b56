package io.winproxy.agent.kube;

/**
 * Told about every request the Kubernetes client sends (see {@link KubeClientFactory}): the metrics record
 * {@code rest_client_*} from it and {@link ApiServerMonitor} notices an unreachable or failing API server.
 *
 * <p>Contract: called on the HTTP client's threads once per request attempt; must be thread-safe, fast, and never
 * throw (an exception is caught and dropped by the caller).
 */
@FunctionalInterface
public interface ApiRequestListener {

    /** Ignores everything. */
    ApiRequestListener NOOP = request -> {
    };

    void completed(ApiRequest request);
}
