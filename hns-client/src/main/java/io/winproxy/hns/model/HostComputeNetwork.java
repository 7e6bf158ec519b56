package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A v2 network. {@code type} is a string enum ("Overlay", "L2Bridge", "NAT", ...); omitted means NAT, and a numeric
 * type (which HNS also accepts) is read by its position in HNS_Schema's NetworkMode list.
 */
public record HostComputeNetwork(@JsonProperty("ID") String id,
                                 @JsonProperty("Name") String name,
                                 @JsonProperty("Type") String type,
                                 @JsonProperty("Policies") List<HcnPolicy> policies,
                                 @JsonProperty("Ipams") List<Ipam> ipams,
                                 @JsonProperty("Flags") int flags,
                                 @JsonProperty("SchemaVersion") SchemaVersion schemaVersion) {
    /** NetworkMode names in HNS_Schema order; the position is the numeric value. */
    private static final List<String> MODES = List.of("NAT", "ICS", "Transparent", "L2Bridge", "L2Tunnel", "Overlay",
            "Private", "Internal", "Mirrored", "Infiniband", "ConstrainedICS");

    public HostComputeNetwork {
        policies = policies == null ? List.of() : List.copyOf(policies);
        ipams = ipams == null ? List.of() : List.copyOf(ipams);
        type = normalizeType(type);
    }

    /** A new v2 network document of {@code type} with one static IPAM block per prefix. */
    public static HostComputeNetwork of(String name, String type, List<HcnPolicy> policies, List<String> prefixes) {
        List<Subnet> subnets = new ArrayList<>();
        for (String prefix : prefixes) {
            subnets.add(new Subnet(prefix, List.of()));
        }
        List<Ipam> ipams = subnets.isEmpty() ? List.of() : List.of(new Ipam("Static", subnets));
        return new HostComputeNetwork(null, name, type, policies, ipams, 0, SchemaVersion.V2);
    }

    public HostComputeNetwork withId(String newId) {
        return new HostComputeNetwork(newId, name, type, policies, ipams, flags, schemaVersion);
    }

    public HostComputeNetwork withPolicies(List<HcnPolicy> newPolicies) {
        return new HostComputeNetwork(id, name, type, newPolicies, ipams, flags, schemaVersion);
    }

    @JsonIgnore
    public boolean isOverlay() {
        return "Overlay".equalsIgnoreCase(type);
    }

    @JsonIgnore
    public boolean isL2Bridge() {
        return "L2Bridge".equalsIgnoreCase(type);
    }

    /** The {@code RemoteSubnetRoute} policies (overlay: where other nodes' pod subnets live). */
    public List<RemoteSubnetRoute> remoteSubnetRoutes() {
        return policies.stream().flatMap(p -> RemoteSubnetRoute.from(p).stream()).toList();
    }

    /** This host's provider address (the {@code ProviderAddress} network policy), if any. */
    public Optional<String> providerAddress() {
        return firstSetting(HcnPolicy.PROVIDER_ADDRESS, "ProviderAddress");
    }

    /** The distributed-router MAC ({@code DrMacAddress} network policy), if any. */
    public Optional<String> drMacAddress() {
        return firstSetting(HcnPolicy.DR_MAC_ADDRESS, "Address");
    }

    /** Every subnet prefix of every IPAM block, in document order. */
    public List<String> subnetPrefixes() {
        return ipams.stream().flatMap(i -> i.subnets().stream()).map(Subnet::ipAddressPrefix)
                .filter(p -> p != null && !p.isEmpty()).toList();
    }

    private Optional<String> firstSetting(String policyType, String member) {
        return policies.stream().filter(p -> p.isType(policyType))
                .flatMap(p -> p.setting(member).stream()).findFirst();
    }

    private static String normalizeType(String type) {
        if (type == null || type.isEmpty()) {
            return "NAT";
        }
        if (type.chars().allMatch(Character::isDigit)) {
            int n = Integer.parseInt(type);
            return n < MODES.size() ? MODES.get(n) : type;
        }
        for (String mode : MODES) {
            if (mode.equalsIgnoreCase(type)) {
                return mode;
            }
        }
        return type;
    }

    /** An IPAM block of a network ({@code Type} "Static" or "Dhcp"). */
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
