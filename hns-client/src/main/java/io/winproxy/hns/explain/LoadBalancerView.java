package io.winproxy.hns.explain;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.winproxy.hns.model.HcnNames;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Readable and structured views of one load balancer, shared by the explainer and the listing. Member names of the
 * structured form follow the {@code plan -o json} contract ({@code frontendVIPs}, {@code externalPort},
 * {@code internalPort}, {@code protocol}, {@code backends}, {@code sourceVIP}, {@code flags},
 * {@code portMappingFlags}, {@code distributionType}, {@code dsr}, {@code ipv6}).
 */
final class LoadBalancerView {
    private LoadBalancerView() {
    }

    static LoadBalancerPortMapping mapping(HostComputeLoadBalancer lb) {
        return lb.portMapping().orElse(new LoadBalancerPortMapping(0, 0, 0, 0, 0));
    }

    /** {@code 10.96.0.10:53/UDP}, or {@code *:30080/TCP} for a VIP-less (NodePort-style) load balancer. */
    static String frontend(HostComputeLoadBalancer lb) {
        LoadBalancerPortMapping pm = mapping(lb);
        String port = ":" + pm.externalPort() + "/" + HcnNames.protocol(pm.protocol());
        if (lb.frontendVips().isEmpty()) {
            return "*" + port;
        }
        List<String> parts = new ArrayList<>();
        for (String vip : lb.frontendVips()) {
            parts.add((vip.contains(":") ? "[" + vip + "]" : vip) + port);
        }
        return String.join(", ", parts);
    }

    /** Every flag by name: LB flags, port-mapping flags, then a non-default distribution; {@code -} for none. */
    static String flags(HostComputeLoadBalancer lb) {
        LoadBalancerPortMapping pm = mapping(lb);
        List<String> all = new ArrayList<>(HcnNames.loadBalancerFlagList(lb.flags()));
        all.addAll(HcnNames.portMappingFlagList(pm.flags()));
        if (pm.distributionType() != 0) {
            all.add(HcnNames.distributionType(pm.distributionType()));
        }
        return all.isEmpty() ? "-" : String.join("|", all);
    }

    /** Backends as {@code ip:port} when {@code endpointIp} knows the endpoint, else the endpoint ID. */
    static List<String> backends(HostComputeLoadBalancer lb, Function<String, String> endpointIp) {
        int port = mapping(lb).internalPort();
        List<String> out = new ArrayList<>();
        for (String id : lb.hostComputeEndpoints()) {
            String ip = endpointIp.apply(id);
            out.add(ip == null ? id : (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + port);
        }
        return out;
    }

    static ObjectNode json(HostComputeLoadBalancer lb, Function<String, String> endpointIp) {
        LoadBalancerPortMapping pm = mapping(lb);
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        if (lb.id() != null) {
            o.put("id", lb.id());
        }
        strings(o.putArray("frontendVIPs"), lb.frontendVips());
        o.put("externalPort", pm.externalPort());
        o.put("internalPort", pm.internalPort());
        o.put("protocol", HcnNames.protocol(pm.protocol()));
        ArrayNode backends = o.putArray("backends");
        ArrayNode ids = o.putArray("backendEndpoints");
        for (String id : lb.hostComputeEndpoints()) {
            String ip = endpointIp.apply(id);
            if (ip != null) {
                backends.add(ip);
            }
            ids.add(id);
        }
        o.put("sourceVIP", lb.sourceVip());
        strings(o.putArray("flags"), HcnNames.loadBalancerFlagList(lb.flags()));
        strings(o.putArray("portMappingFlags"), HcnNames.portMappingFlagList(pm.flags()));
        o.put("distributionType", HcnNames.distributionType(pm.distributionType()));
        o.put("dsr", lb.isDsr());
        o.put("ipv6", lb.isIpv6());
        return o;
    }

    static void strings(ArrayNode array, List<String> values) {
        values.forEach(array::add);
    }
}
