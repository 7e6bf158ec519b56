package io.winproxy.agent.kube;

/**
 * How to reach the API server: kube-proxy's {@code clientConnection} block plus {@code --master}. Plain values, so
 * that {@code ProxyConfig} (owned by the configuration code) maps onto it without this package depending on it.
 *
 * @param kubeconfig         path of a kubeconfig file; null or blank means "not given"
 * @param master             API server URL overriding the kubeconfig's server; null or blank means "not given".
 *                           With neither, the in-cluster service account is used (falling back to the default
 *                           kubeconfig locations, as client-go does); with none of these, creating the client fails
 * @param contentType        {@code clientConnection.contentType}; fabric8 speaks JSON only, so protobuf is
 *                           accepted and JSON is used instead
 * @param acceptContentTypes {@code clientConnection.acceptContentTypes}; informational, as above
 * @param qps                sustained requests per second (kube-proxy default 5); 0 or less disables limiting
 * @param burst              requests allowed in a burst above {@code qps} (kube-proxy default 10)
 */
public record KubeClientSettings(String kubeconfig, String master, String contentType, String acceptContentTypes,
                                 float qps, int burst) {

    /** The kube-proxy defaults for the in-cluster case. */
    public static KubeClientSettings defaults() {
        return new KubeClientSettings(null, null, "application/vnd.kubernetes.protobuf", "", 5f, 10);
    }

    /** Defaults with the given master URL (used by the demo and tests for a local API server). */
    public static KubeClientSettings forMaster(String masterUrl) {
        return new KubeClientSettings(null, masterUrl, "application/json", "", 0f, 0);
    }

    boolean hasKubeconfig() {
        return kubeconfig != null && !kubeconfig.isBlank();
    }

    boolean hasMaster() {
        return master != null && !master.isBlank();
    }
}
