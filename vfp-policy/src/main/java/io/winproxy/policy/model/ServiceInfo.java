package io.winproxy.policy.model;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A Kubernetes Service reduced to the plain values the proxy uses. Built by the agent's mappers (fabric8 types stop
 * there) and by tests directly. Values are as the API returns them; validation happens in the change tracker, which
 * skips bad ports with a warning naming the Service.
 *
 * @param type                        ClusterIP, NodePort, LoadBalancer or ExternalName
 * @param clusterIps                  {@code spec.clusterIPs} (falling back to {@code spec.clusterIP}); "None" for
 *                                    headless
 * @param ipFamilies                  {@code spec.ipFamilies} as given ("IPv4", "IPv6")
 * @param loadBalancerIngress         {@code status.loadBalancer.ingress}
 * @param sessionAffinity             "ClientIP" or "None"
 * @param sessionAffinityTimeoutSeconds {@code sessionAffinityConfig.clientIP.timeoutSeconds}, 0 when unset
 * @param internalTrafficPolicy       raw value, null when unset
 * @param externalTrafficPolicy       raw value, null when unset
 * @param trafficDistribution         {@code spec.trafficDistribution}, null when unset
 * @param annotations                 metadata annotations the proxy reads (the policy's
 *                                    {@link #READ_ANNOTATIONS}: {@code preserve-destination},
 *                                    {@code service.kubernetes.io/topology-mode} and {@code -aware-hints}); the
 *                                    agent's mapper keeps no others
 */
public record ServiceInfo(String namespace, String name, String type, List<String> clusterIps, List<String> ipFamilies,
                          List<ServicePortSpec> ports, List<String> externalIps,
                          List<LoadBalancerIngress> loadBalancerIngress, String sessionAffinity,
                          int sessionAffinityTimeoutSeconds, String internalTrafficPolicy,
                          String externalTrafficPolicy, int healthCheckNodePort, String trafficDistribution,
                          Map<String, String> annotations) {
    /**
     * The annotations the proxy reads (the change tracker's {@code ServiceConverter}); a mapper may drop every other
     * one ({@code last-applied-configuration} alone can be kilobytes per Service).
     */
    public static final Set<String> READ_ANNOTATIONS = Set.of("preserve-destination",
            "service.kubernetes.io/topology-mode", "service.kubernetes.io/topology-aware-hints");

    public ServiceInfo {
        clusterIps = clusterIps == null ? List.of() : List.copyOf(clusterIps);
        ipFamilies = ipFamilies == null ? List.of() : List.copyOf(ipFamilies);
        ports = ports == null ? List.of() : List.copyOf(ports);
        externalIps = externalIps == null ? List.of() : List.copyOf(externalIps);
        loadBalancerIngress = loadBalancerIngress == null ? List.of() : List.copyOf(loadBalancerIngress);
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    }

    /** "namespace/name". */
    public String key() {
        return namespace + "/" + name;
    }

    /**
     * One entry of {@code spec.ports}.
     *
     * @param protocol   raw protocol name, null means TCP
     * @param targetPort the IntOrString target port as text ("8080" or "http"); null or empty means "same as port"
     */
    public record ServicePortSpec(String name, String protocol, int port, String targetPort, int nodePort) {
    }

    /** One entry of {@code status.loadBalancer.ingress}; {@code ipMode} is "VIP", "Proxy" or null. */
    public record LoadBalancerIngress(String ip, String hostname, String ipMode) {
    }
}
