package io.winproxy.policy.desired;

/** What a load balancer serves; the names are those of {@code plan -o json}'s {@code kind}. */
public enum LoadBalancerKind {
    CLUSTER_IP("ClusterIP"),
    NODE_PORT("NodePort"),
    EXTERNAL_IP("ExternalIP"),
    LOAD_BALANCER_INGRESS("LoadBalancerIngress"),
    HEALTH_CHECK("HealthCheck");

    private final String displayName;

    LoadBalancerKind(String displayName) {
        this.displayName = displayName;
    }

    public String displayName() {
        return displayName;
    }
}
