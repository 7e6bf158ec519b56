package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** A v2 network. {@code type} is a string enum ("Overlay", "L2Bridge", "NAT", ...); omitted means NAT. */
public record HostComputeNetwork(@JsonProperty("ID") String id,
                                 @JsonProperty("Name") String name,
                                 @JsonProperty("Type") String type,
                                 @JsonProperty("Policies") List<HcnPolicy> policies,
                                 @JsonProperty("Ipams") List<Ipam> ipams,
                                 @JsonProperty("Flags") int flags,
                                 @JsonProperty("SchemaVersion") SchemaVersion schemaVersion) {
    public HostComputeNetwork {
        policies = policies == null ? List.of() : List.copyOf(policies);
        ipams = ipams == null ? List.of() : List.copyOf(ipams);
        type = type == null ? "NAT" : type;
    }

    /** An IPAM block of a network. */
    public record Ipam(@JsonProperty("Type") String type, @JsonProperty("Subnets") List<Subnet> subnets) {
        public Ipam {
            subnets = subnets == null ? List.of() : List.copyOf(subnets);
        }
    }

    /** A subnet of an IPAM block. */
    public record Subnet(@JsonProperty("IpAddressPrefix") String ipAddressPrefix,
                         @JsonProperty("Routes") List<Route> routes) {
        public Subnet {
            routes = routes == null ? List.of() : List.copyOf(routes);
        }
    }

    /** A route of a subnet. */
    public record Route(@JsonProperty("NextHop") String nextHop,
                        @JsonProperty("DestinationPrefix") String destinationPrefix,
                        @JsonProperty("Metric") int metric) {
    }
}
