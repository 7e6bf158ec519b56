package io.winproxy.agent.kube;

/** The Kubernetes client cannot be built from the given settings; the message is one line naming the setting. */
public final class KubeClientException extends RuntimeException {
    public KubeClientException(String message) {
        super(message);
    }

    public KubeClientException(String message, Throwable cause) {
        super(message, cause);
    }
}
