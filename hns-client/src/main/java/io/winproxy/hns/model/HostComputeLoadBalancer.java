package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * A v2 load balancer (the v1 view calls it a policy list with one ELB policy). {@code flags}: 1 DSR, 2 IPv6.
 * {@code id} is null on create input; HNS assigns it.
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

    /** The same document with another ID (used when HNS assigns one). */
    public HostComputeLoadBalancer withId(String newId) {
        return new HostComputeLoadBalancer(newId, hostComputeEndpoints, sourceVip, frontendVips, portMappings,
                schemaVersion, flags);
    }
}
