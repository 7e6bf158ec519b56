package io.winproxy.policy.desired;

/**
 * Something the policy skipped or could not honour. {@code kind}/{@code namespace}/{@code name} name the Kubernetes
 * object ("Service", "EndpointSlice") so the agent can emit a Warning event on it; {@code reason} is a short
 * CamelCase word, {@code message} a sentence for humans.
 */
public record PolicyWarning(String kind, String namespace, String name, String reason, String message) {

    /** "Service ns/name: message". */
    @Override
    public String toString() {
        return kind + " " + namespace + "/" + name + ": " + message;
    }
}
