package io.winproxy.policy.plan;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.NodeNetwork;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** What the host holds now, as read by the dataplane at the start of a sync. */
public record ObservedState(List<ObservedEndpoint> endpoints, List<ObservedLoadBalancer> loadBalancers) {
    public static final ObservedState EMPTY = new ObservedState(List.of(), List.of());

    public ObservedState {
        endpoints = List.copyOf(endpoints);
        loadBalancers = List.copyOf(loadBalancers);
    }

    /** The endpoints by ID. */
    public Map<String, ObservedEndpoint> endpointsById() {
        Map<String, ObservedEndpoint> out = new LinkedHashMap<>();
        endpoints.forEach(ep -> out.put(ep.id(), ep));
        return out;
    }

    /**
     * The host as it would be if {@code desired} were programmed on a network with {@code node}'s local endpoints:
     * local endpoints {@code local-1..}, remote endpoints {@code remote-1..}, load balancers {@code lb-1..}
     * (synthetic IDs, in order). Lets the packet tracer answer for a manifests directory.
     */
    public static ObservedState fromDesired(DesiredState desired, NodeNetwork node) {
        List<ObservedEndpoint> eps = new ArrayList<>();
        Map<String, String> idByIp = new LinkedHashMap<>();
        int n = 0;
        TreeSet<String> localIps = new TreeSet<>(node.localEndpointIps());
        localIps.addAll(node.rootEndpointIps());
        for (String ip : localIps) {
            String id = "local-" + (++n);
            eps.add(ObservedEndpoint.local(id, ip));
            idByIp.put(ip, id);
        }
        n = 0;
        for (DesiredRemoteEndpoint r : desired.remoteEndpoints()) {
            if (idByIp.containsKey(r.ip())) {
                continue;
            }
            String id = "remote-" + (++n);
            eps.add(ObservedEndpoint.remote(id, r.ip(), r.providerAddress()));
            idByIp.put(r.ip(), id);
        }
        List<ObservedLoadBalancer> lbs = new ArrayList<>();
        n = 0;
        for (DesiredLoadBalancer lb : desired.loadBalancers()) {
            List<String> ids = new ArrayList<>();
            List<String> ips = new ArrayList<>();
            for (String ip : lb.backends()) {
                String id = idByIp.get(ip);
                if (id != null) {
                    ids.add(id);
                    ips.add(ip);
                }
            }
            lbs.add(new ObservedLoadBalancer("lb-" + (++n), lb.key(), lb.internalPort(), ids, ips, lb.sourceVip(),
                    lb.flags(), lb.portMappingFlags(), lb.distributionType()));
        }
        return new ObservedState(eps, lbs);
    }
}
