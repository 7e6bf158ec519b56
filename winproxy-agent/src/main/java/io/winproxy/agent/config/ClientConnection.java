package io.winproxy.agent.config;

/**
 * How to reach the API server: the file's {@code clientConnection} block and the {@code --kubeconfig},
 * {@code --kube-api-*} flags. An empty {@code kubeconfig} with no {@code --master} means in-cluster configuration.
 *
 * @param kubeconfig         path of the kubeconfig file, "" for none
 * @param acceptContentTypes the Accept header, "" for the client's default
 * @param contentType        the content type of requests (kube-proxy default
 *                           {@code application/vnd.kubernetes.protobuf}; the Java client speaks JSON either way)
 * @param qps                sustained queries per second to the API server
 * @param burst              burst of queries above {@code qps}
 */
public record ClientConnection(String kubeconfig, String acceptContentTypes, String contentType, float qps,
                               int burst) {

    public static final String DEFAULT_CONTENT_TYPE = "application/vnd.kubernetes.protobuf";
}
