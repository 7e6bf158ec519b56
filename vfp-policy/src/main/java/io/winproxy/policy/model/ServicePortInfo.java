package io.winproxy.policy.model;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One processed, validated service port (kube-proxy's {@code BaseServicePortInfo}), for every IP family the
 * Service carries. Built by the {@code ServiceChangeTracker} from a {@link ServiceInfo}; all IPs are canonical.
 *
 * @param name                  the service port's identity
 * @param type                  ClusterIP, NodePort or LoadBalancer (ExternalName and headless Services have no ports)
 * @param clusterIps            the cluster IP per family (at least one)
 * @param port                  the service port (1-65535)
 * @param targetPort            the numeric target port, 0 when the target port is named (see {@code targetPortName})
 * @param targetPortName        the named target port, or "" when numeric
 * @param nodePort              the node port, 0 when none
 * @param externalIps           {@code spec.externalIPs} of the families in {@code clusterIps}, canonical, sorted
 * @param loadBalancerIps       {@code status.loadBalancer.ingress[].ip} with ipMode unset or VIP, canonical, sorted
 * @param clientIpAffinity      session affinity ClientIP
 * @param stickyMaxAgeSeconds   the ClientIP timeout (10800 when unset), 0 without affinity
 * @param internalTrafficPolicy ITP
 * @param externalTrafficPolicy ETP as written; see {@link #externalPolicyLocal()} for the effective value
 * @param healthCheckNodePort   {@code spec.healthCheckNodePort}, 0 when none
 * @param trafficDistribution   {@code spec.trafficDistribution} ("" when unset)
 * @param preserveDestination   annotation {@code preserve-destination: "true"}
 * @param topologyMode          annotation {@code service.kubernetes.io/topology-mode} (or the deprecated
 *                              {@code service.kubernetes.io/topology-aware-hints}), "" when unset
 */
public record ServicePortInfo(ServicePortName name, String type, Map<IpFamily, String> clusterIps, int port,
                              int targetPort, String targetPortName, int nodePort, List<String> externalIps,
                              List<String> loadBalancerIps, boolean clientIpAffinity, int stickyMaxAgeSeconds,
                              TrafficPolicy internalTrafficPolicy, TrafficPolicy externalTrafficPolicy,
                              int healthCheckNodePort, String trafficDistribution, boolean preserveDestination,
                              String topologyMode) {
    /** Kubernetes' default ClientIP affinity timeout (3 hours). */
    public static final int DEFAULT_STICKY_MAX_AGE_SECONDS = 10800;

    public ServicePortInfo {
        clusterIps = Map.copyOf(clusterIps);
        externalIps = List.copyOf(externalIps);
        loadBalancerIps = List.copyOf(loadBalancerIps);
        targetPortName = targetPortName == null ? "" : targetPortName;
        trafficDistribution = trafficDistribution == null ? "" : trafficDistribution;
        topologyMode = topologyMode == null ? "" : topologyMode;
    }

    public Protocol protocol() {
        return name.protocol();
    }

    /** "namespace/name" of the Service. */
    public String serviceKey() {
        return name.serviceKey();
    }

    /** The families this port serves (those with a cluster IP), IPv4 first. */
    public Set<IpFamily> families() {
        return new TreeSet<>(clusterIps.keySet());
    }

    /** The cluster IP of {@code family}, or "" when the Service has none. */
    public String clusterIp(IpFamily family) {
        return clusterIps.getOrDefault(family, "");
    }

    /** External IPs of one family. */
    public List<String> externalIps(IpFamily family) {
        return externalIps.stream().filter(ip -> IpFamily.of(ip) == family).toList();
    }

    /** LoadBalancer ingress IPs of one family. */
    public List<String> loadBalancerIps(IpFamily family) {
        return loadBalancerIps.stream().filter(ip -> IpFamily.of(ip) == family).toList();
    }

    /** Reachable from outside the cluster: a node port, an external IP or a LoadBalancer VIP. */
    public boolean externallyAccessible() {
        return nodePort != 0 || !externalIps.isEmpty() || !loadBalancerIps.isEmpty();
    }

    /** {@code internalTrafficPolicy: Local}. */
    public boolean internalPolicyLocal() {
        return internalTrafficPolicy == TrafficPolicy.LOCAL;
    }

    /** {@code externalTrafficPolicy: Local} on a port that is actually reachable from outside. */
    public boolean externalPolicyLocal() {
        return externalTrafficPolicy == TrafficPolicy.LOCAL && externallyAccessible();
    }

    /** Some traffic to this port may use endpoints on any node (kube-proxy's UsesClusterEndpoints). */
    public boolean usesClusterEndpoints() {
        return !internalPolicyLocal() || externallyAccessible();
    }

    /** Some traffic to this port uses only this node's endpoints (kube-proxy's UsesLocalEndpoints). */
    public boolean usesLocalEndpoints() {
        return internalPolicyLocal() || externalPolicyLocal();
    }
}
