package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Optional;

/**
 * A v2 load balancer (the v1 view calls it a policy list with one ELB policy). {@code flags}: 1 DSR, 2 IPv6.
 * {@code id} is null on create input; HNS assigns it. Members encode in kube-proxy's order; zero/empty ones are
 * omitted. kube-proxy and hcsshim always send exactly one port mapping; an empty {@code frontendVips} is a
 * NodePort-style LB on every host IP.
 */
public record HostComputeLoadBalancer(@JsonProperty("ID") String id,
                                      @JsonProperty("HostComputeEndpoints") List<String> hostComputeEndpoints,
                                      @JsonProperty("SourceVIP") String sourceVip,
                                      @JsonProperty("FrontendVIPs") List<String> frontendVips,
                                      @JsonProperty("PortMappings") List<LoadBalancerPortMapping> portMappings,
                                      @JsonProperty("SchemaVersion") SchemaVersion schemaVersion,
                                      @JsonProperty("Flags") int flags) {
    public static final int FLAG_DSR = 1;
    public static final int FLAG_IPV6 = 2;

    public HostComputeLoadBalancer {
        hostComputeEndpoints = hostComputeEndpoints == null ? List.of() : List.copyOf(hostComputeEndpoints);
        frontendVips = frontendVips == null ? List.of() : List.copyOf(frontendVips);
        portMappings = portMappings == null ? List.of() : List.copyOf(portMappings);
        sourceVip = sourceVip == null ? "" : sourceVip;
    }

    /** A v2 create document with one port mapping ({@code vip} null or empty for a NodePort-style LB). */
    public static HostComputeLoadBalancer of(List<String> endpointIds, String sourceVip, String vip,
                                             LoadBalancerPortMapping mapping, int flags) {
        List<String> vips = vip == null || vip.isEmpty() ? List.of() : List.of(vip);
        return new HostComputeLoadBalancer(null, endpointIds, sourceVip, vips, List.of(mapping), SchemaVersion.V2,
                flags);
    }

    /** The same document with another ID (used when HNS assigns one). */
    public HostComputeLoadBalancer withId(String newId) {
        return new HostComputeLoadBalancer(newId, hostComputeEndpoints, sourceVip, frontendVips, portMappings,
                schemaVersion, flags);
    }

    public HostComputeLoadBalancer withEndpoints(List<String> endpointIds) {
        return new HostComputeLoadBalancer(id, endpointIds, sourceVip, frontendVips, portMappings, schemaVersion,
                flags);
    }

    /** The first (in practice the only) port mapping, or empty. */
    public Optional<LoadBalancerPortMapping> portMapping() {
        return portMappings.stream().findFirst();
    }

    /** The first frontend VIP, or empty for a NodePort-style LB. */
    public Optional<String> frontendVip() {
        return frontendVips.stream().filter(v -> v != null && !v.isEmpty()).findFirst();
    }

    @JsonIgnore
    public boolean isDsr() {
        return (flags & FLAG_DSR) != 0;
    }

    @JsonIgnore
    public boolean isIpv6() {
        return (flags & FLAG_IPV6) != 0;
    }
}
