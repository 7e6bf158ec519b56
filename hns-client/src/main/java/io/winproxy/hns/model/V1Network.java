package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The v1 view of a network, as {@code Get-HnsNetwork} shows it. v1 network policies are flat objects
 * ({@code {"Type":"RemoteSubnetRoute","DestinationPrefix":...,"ProviderAddress":...}}) and stay JSON trees.
 */
public record V1Network(@JsonProperty("ID") String id,
                        @JsonProperty("Name") String name,
                        @JsonProperty("Type") String type,
                        @JsonProperty("NetworkAdapterName") String networkAdapterName,
                        @JsonProperty("SourceMac") String sourceMac,
                        @JsonProperty("ManagementIP") String managementIp,
                        @JsonProperty("Subnets") List<V1Subnet> subnets,
                        @JsonProperty("Policies") List<JsonNode> policies,
                        @JsonProperty("State") int state) {
    public V1Network {
        subnets = subnets == null ? List.of() : List.copyOf(subnets);
        policies = policies == null ? List.of() : List.copyOf(policies);
    }

    /** The {@code RemoteSubnetRoute} policies, flat v1 members or v2-style {@code Settings}. */
    public List<RemoteSubnetRoute> remoteSubnetRoutes() {
        List<RemoteSubnetRoute> out = new ArrayList<>();
        for (JsonNode p : policies) {
            if (!Settings.text(p, "Type").orElse("").equalsIgnoreCase(HcnPolicy.REMOTE_SUBNET_ROUTE)) {
                continue;
            }
            JsonNode s = Settings.member(p, "Settings") != null ? Settings.member(p, "Settings") : p;
            out.add(new RemoteSubnetRoute(Settings.text(s, "DestinationPrefix").orElse(""),
                    Settings.integer(s, "IsolationId"), Settings.text(s, "ProviderAddress").orElse(""),
                    Settings.text(s, "DistributedRouterMacAddress").orElse("")));
        }
        return out;
    }

    /** The v2 view: name, type, subnets and remote-subnet routes (other v1 policies are dropped). */
    public HostComputeNetwork toNetwork() {
        List<HcnPolicy> v2 = remoteSubnetRoutes().stream().map(RemoteSubnetRoute::toPolicy).toList();
        List<String> prefixes = subnets.stream().map(V1Subnet::addressPrefix)
                .filter(p -> p != null && !p.isEmpty()).toList();
        return HostComputeNetwork.of(name, type, v2, prefixes).withId(id);
    }

    /** A v1 subnet. */
    public record V1Subnet(@JsonProperty("AddressPrefix") String addressPrefix,
                           @JsonProperty("GatewayAddress") String gatewayAddress) {
    }
}
