package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A v2 endpoint. {@code flags} bit 1 = RemoteEndpoint (the endpoint lives on another host; a remote endpoint of an
 * overlay network carries a {@code ProviderAddress} policy naming that host). {@code ipConfigurations}: index 0 is
 * the IPv4 address, index 1 the IPv6 one for dual stack.
 */
public record HostComputeEndpoint(@JsonProperty("ID") String id,
                                  @JsonProperty("Name") String name,
                                  @JsonProperty("HostComputeNetwork") String hostComputeNetwork,
                                  @JsonProperty("Policies") List<HcnPolicy> policies,
                                  @JsonProperty("IpConfigurations") List<IpConfiguration> ipConfigurations,
                                  @JsonProperty("MacAddress") String macAddress,
                                  @JsonProperty("Flags") int flags,
                                  @JsonProperty("SchemaVersion") SchemaVersion schemaVersion) {
    public static final int FLAG_REMOTE_ENDPOINT = 1;
    public static final int FLAG_DISABLE_ICC = 2;

    public HostComputeEndpoint {
        policies = policies == null ? List.of() : List.copyOf(policies);
        ipConfigurations = ipConfigurations == null ? List.of() : List.copyOf(ipConfigurations);
    }

    /**
     * kube-proxy's remote-endpoint recipe: IP, MAC, RemoteEndpoint flag and, when {@code providerAddress} is
     * non-null (overlay), a {@code ProviderAddress} policy.
     */
    public static HostComputeEndpoint remote(String networkId, String ip, String mac, String providerAddress) {
        List<HcnPolicy> policies = providerAddress == null || providerAddress.isEmpty()
                ? List.of() : List.of(HcnPolicy.providerAddress(providerAddress));
        return new HostComputeEndpoint(null, null, networkId, policies, List.of(new IpConfiguration(ip, 0)), mac,
                FLAG_REMOTE_ENDPOINT, SchemaVersion.V2);
    }

    /** A local (CNI-owned) endpoint for {@code ip}. */
    public static HostComputeEndpoint local(String networkId, String name, String ip, int prefixLength, String mac) {
        return new HostComputeEndpoint(null, name, networkId, List.of(), List.of(new IpConfiguration(ip, prefixLength)),
                mac, 0, SchemaVersion.V2);
    }

    public HostComputeEndpoint withId(String newId) {
        return new HostComputeEndpoint(newId, name, hostComputeNetwork, policies, ipConfigurations, macAddress, flags,
                schemaVersion);
    }

    public HostComputeEndpoint withNetwork(String networkId) {
        return new HostComputeEndpoint(id, name, networkId, policies, ipConfigurations, macAddress, flags,
                schemaVersion);
    }

    @JsonIgnore
    public boolean isRemote() {
        return (flags & FLAG_REMOTE_ENDPOINT) != 0;
    }

    /** The first IP address (IPv4 for dual stack), or empty. */
    public Optional<String> ipAddress() {
        return ipAddresses().stream().findFirst();
    }

    /** Every non-empty IP address, in document order (at most two in practice). */
    public List<String> ipAddresses() {
        List<String> ips = new ArrayList<>();
        for (IpConfiguration c : ipConfigurations) {
            if (c != null && c.ipAddress() != null && !c.ipAddress().isEmpty()) {
                ips.add(c.ipAddress());
            }
        }
        return ips;
    }

    /** The PA of the {@code ProviderAddress} policy (remote overlay endpoints), if any. */
    public Optional<String> providerAddress() {
        return policies.stream().filter(p -> p.isType(HcnPolicy.PROVIDER_ADDRESS))
                .flatMap(p -> p.setting("ProviderAddress").stream()).findFirst();
    }
}
