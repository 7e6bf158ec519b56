package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The v1 view of a load balancer, as {@code Get-HnsPolicyList} shows it: the same ID as the v2 load balancer,
 * backends as {@code References} {@code "/endpoints/<guid>"}, and normally one {@code ELB} policy. Server-added
 * members ({@code ActivityId}, {@code Resources}, ...) are ignored on input.
 */
public record V1PolicyList(@JsonProperty("ID") String id,
                           @JsonProperty("Policies") List<V1Policy> policies,
                           @JsonProperty("References") List<String> references,
                           @JsonProperty("IsApplied") boolean isApplied) {
    public static final String ENDPOINT_REFERENCE_PREFIX = "/endpoints/";

    public V1PolicyList {
        policies = policies == null ? List.of() : List.copyOf(policies);
        references = references == null ? List.of() : List.copyOf(references);
    }

    /** The first ELB policy, or empty (a route-only policy list). */
    public Optional<V1Policy> elbPolicy() {
        return policies.stream().filter(V1Policy::isElb).findFirst();
    }

    /** The endpoint IDs the references name, in order ({@code "/endpoints/<id>"} -> {@code <id>}, lower-cased). */
    public List<String> endpointIds() {
        List<String> ids = new ArrayList<>();
        for (String ref : references) {
            if (ref == null) {
                continue;
            }
            String r = ref.trim();
            int slash = r.lastIndexOf('/');
            ids.add((slash >= 0 ? r.substring(slash + 1) : r).toLowerCase(java.util.Locale.ROOT));
        }
        return ids;
    }

    /**
     * The v1 view of a v2 load balancer: one ELB policy carrying ports, protocol, VIPs, source VIP, ILB,
     * LocalRoutedVip and DSR. DistributionType, PreserveDIP, UseMux, VipExternalIP and IPv6 have no confirmed v1
     * spelling (hcn-api.md section 5.2) and are dropped.
     */
    public static V1PolicyList fromLoadBalancer(HostComputeLoadBalancer lb) {
        LoadBalancerPortMapping pm = lb.portMapping().orElse(new LoadBalancerPortMapping(0, 0, 0, 0, 0));
        V1Policy elb = V1Policy.elb(pm.protocol(), pm.internalPort(), pm.externalPort(), lb.frontendVips(),
                lb.sourceVip(), pm.hasFlag(LoadBalancerPortMapping.FLAG_ILB), lb.isDsr(),
                pm.hasFlag(LoadBalancerPortMapping.FLAG_LOCAL_ROUTED_VIP));
        List<String> refs = lb.hostComputeEndpoints().stream().map(id -> ENDPOINT_REFERENCE_PREFIX + id).toList();
        return new V1PolicyList(lb.id(), List.of(elb), refs, true);
    }

    /**
     * The v2 view of this policy list: the ELB policy becomes the port mapping, the references the backends, and a
     * VIP containing ':' sets the IPv6 flag. Empty when there is no ELB policy.
     */
    public Optional<HostComputeLoadBalancer> toLoadBalancer() {
        return elbPolicy().map(p -> {
            int pmFlags = (p.ilb() ? LoadBalancerPortMapping.FLAG_ILB : 0)
                    | (p.localRoutedVip() ? LoadBalancerPortMapping.FLAG_LOCAL_ROUTED_VIP : 0);
            boolean ipv6 = p.vips().stream().anyMatch(v -> v != null && v.contains(":"));
            int flags = (p.isDsr() ? HostComputeLoadBalancer.FLAG_DSR : 0)
                    | (ipv6 ? HostComputeLoadBalancer.FLAG_IPV6 : 0);
            return new HostComputeLoadBalancer(id, endpointIds(), p.sourceVip(), p.vips(),
                    List.of(new LoadBalancerPortMapping(p.protocol(), p.internalPort(), p.externalPort(), 0, pmFlags)),
                    SchemaVersion.V2, flags);
        });
    }
}
