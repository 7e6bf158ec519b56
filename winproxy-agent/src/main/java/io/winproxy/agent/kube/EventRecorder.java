package io.winproxy.agent.kube;

/**
 * Emits Kubernetes events (core/v1 Event) on behalf of the proxy, as kube-proxy's recorder does. Implementations
 * must never block the caller on the API server and must deduplicate repeated identical events.
 */
public interface EventRecorder {
    EventRecorder NOOP = (kind, namespace, name, type, reason, message) -> { };

    /**
     * @param kind      "Service" or "Node" (the involved object)
     * @param namespace the object's namespace ("" for a Node)
     * @param type      "Normal" or "Warning"
     */
    void event(String kind, String namespace, String name, String type, String reason, String message);
}
