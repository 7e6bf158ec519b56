package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The v1 view of an endpoint, as {@code Get-HnsEndpoint} shows it. Policies stay JSON trees (v1 policy types differ
 * in shape: {@code {"Type":"PA","PA":"<ip>"}}, {@code NAT} with a string protocol, {@code OutBoundNAT}, ...).
 * {@code state}: 0 Uninitialized, 1 Created, 2 Attached, 3 AttachedSharing, 4 Detached, 5 Degraded, 6 Destroyed.
 */
public record V1Endpoint(@JsonProperty("ID") String id,
                         @JsonProperty("Name") String name,
                         @JsonProperty("VirtualNetwork") String virtualNetwork,
                         @JsonProperty("VirtualNetworkName") String virtualNetworkName,
                         @JsonProperty("Policies") List<JsonNode> policies,
                         @JsonProperty("MacAddress") String macAddress,
                         @JsonProperty("IPAddress") String ipAddress,
                         @JsonProperty("PrefixLength") int prefixLength,
                         @JsonProperty("IPv6Address") String ipv6Address,
                         @JsonProperty("IsRemoteEndpoint") boolean isRemoteEndpoint,
                         @JsonProperty("State") int state) {
    private static final String[] STATES = {"Uninitialized", "Created", "Attached", "AttachedSharing", "Detached",
        "Degraded", "Destroyed"};

    public V1Endpoint {
        policies = policies == null ? List.of() : List.copyOf(policies);
    }

    /** The PA of a {@code PA} (or v2-style {@code ProviderAddress}) policy, if any. */
    public Optional<String> providerAddress() {
        for (JsonNode p : policies) {
            String type = Settings.text(p, "Type").orElse("");
            if (type.equalsIgnoreCase("PA")) {
                Optional<String> pa = Settings.text(p, "PA");
                if (pa.isPresent()) {
                    return pa;
                }
            }
            if (type.equalsIgnoreCase(HcnPolicy.PROVIDER_ADDRESS)) {
                Optional<String> pa = Settings.text(p, "ProviderAddress")
                        .or(() -> Settings.text(Settings.member(p, "Settings"), "ProviderAddress"));
                if (pa.isPresent()) {
                    return pa;
                }
            }
        }
        return Optional.empty();
    }

    public String stateName() {
        return state >= 0 && state < STATES.length ? STATES[state] : Integer.toString(state);
    }

    /** The v2 view: IPs, MAC, RemoteEndpoint flag and ProviderAddress policy. */
    public HostComputeEndpoint toEndpoint() {
        List<IpConfiguration> ips = new ArrayList<>();
        if (ipAddress != null && !ipAddress.isEmpty()) {
            ips.add(new IpConfiguration(ipAddress, prefixLength));
        }
        if (ipv6Address != null && !ipv6Address.isEmpty()) {
            ips.add(new IpConfiguration(ipv6Address, 0));
        }
        List<HcnPolicy> v2Policies = providerAddress().map(HcnPolicy::providerAddress).stream().toList();
        return new HostComputeEndpoint(id, name, virtualNetwork, v2Policies, ips, macAddress,
                isRemoteEndpoint ? HostComputeEndpoint.FLAG_REMOTE_ENDPOINT : 0, SchemaVersion.V2);
    }
}
