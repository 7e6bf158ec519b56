package io.winproxy.policy.topology;

import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.ServicePortInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * kube-proxy's {@code CategorizeEndpoints} (pkg/proxy/topology.go, newest algorithm): splits a service port's
 * endpoints into the cluster set (ready endpoints, filtered by topology hints when every ready endpoint carries one
 * that matches this node, else serving-terminating endpoints) and the local set (this node's ready endpoints, else its
 * serving-terminating ones). Topology is never applied to the local set. Pure.
 */
public final class EndpointCategorizer {
    /** The topology modes chosen from hints. */
    public enum TopologyMode { NONE, PREFER_SAME_ZONE, PREFER_SAME_NODE }

    private EndpointCategorizer() {
    }

    /**
     * @param endpoints      the endpoints of one service port (one family)
     * @param service        the service port (traffic policies, external accessibility)
     * @param nodeName       this node's name
     * @param zone           this node's zone label ("" matches no hint)
     * @param nodeHints      honour node hints ({@code PreferSameTrafficDistribution} enabled)
     */
    public static CategorizedEndpoints categorize(List<EndpointInfo> endpoints, ServicePortInfo service,
                                                  String nodeName, String zone, boolean nodeHints) {
        if (endpoints.isEmpty()) {
            return CategorizedEndpoints.NONE;
        }
        List<EndpointInfo> cluster = List.of();
        boolean hasAny = false;
        TopologyMode mode = TopologyMode.NONE;
        if (service.usesClusterEndpoints()) {
            mode = topologyMode(endpoints, nodeName, zone, nodeHints);
            TopologyMode m = mode;
            cluster = filter(endpoints, ep -> ep.ready() && availableForTopology(ep, m, nodeName, zone));
            if (cluster.isEmpty()) {
                cluster = filter(endpoints, EndpointInfo::servingTerminating);
            }
            hasAny = !cluster.isEmpty();
        }
        if (!service.usesLocalEndpoints()) {
            return new CategorizedEndpoints(cluster, List.of(), cluster, hasAny);
        }
        boolean hasLocalReady = false;
        boolean hasLocalServingTerminating = false;
        for (EndpointInfo ep : endpoints) {
            if (ep.ready()) {
                hasAny = true;
                hasLocalReady |= ep.local();
            } else if (ep.servingTerminating()) {
                hasAny = true;
                hasLocalServingTerminating |= ep.local();
            }
        }
        List<EndpointInfo> local;
        boolean usedTerminating = false;
        if (hasLocalReady) {
            local = filter(endpoints, ep -> ep.ready() && ep.local());
        } else if (hasLocalServingTerminating) {
            local = filter(endpoints, ep -> ep.servingTerminating() && ep.local());
            usedTerminating = true;
        } else {
            local = List.of();
        }
        if (!service.usesClusterEndpoints()) {
            return new CategorizedEndpoints(List.of(), local, local, hasAny);
        }
        if (mode == TopologyMode.NONE && !usedTerminating) {
            return new CategorizedEndpoints(cluster, local, cluster, hasAny);
        }
        Map<String, EndpointInfo> union = new LinkedHashMap<>();
        cluster.forEach(ep -> union.put(ep.key(), ep));
        local.forEach(ep -> union.putIfAbsent(ep.key(), ep));
        List<EndpointInfo> all = new ArrayList<>(union.values());
        all.sort((a, b) -> a.key().compareTo(b.key()));
        return new CategorizedEndpoints(cluster, local, all, hasAny);
    }

    /** This node's endpoints: the ready ones, else the serving-terminating ones (empty when none). */
    public static List<EndpointInfo> localEndpoints(List<EndpointInfo> endpoints) {
        List<EndpointInfo> ready = filter(endpoints, ep -> ep.local() && ep.ready());
        return ready.isEmpty() ? filter(endpoints, ep -> ep.local() && ep.servingTerminating()) : ready;
    }

    /** The topology mode from the hints of the ready endpoints ({@code topologyModeFromHints}). */
    public static TopologyMode topologyMode(List<EndpointInfo> endpoints, String nodeName, String zone,
                                            boolean nodeHints) {
        List<EndpointInfo> ready = filter(endpoints, EndpointInfo::ready);
        if (ready.isEmpty()) {
            return TopologyMode.NONE;
        }
        if (nodeHints && !nodeName.isEmpty()
                && ready.stream().allMatch(ep -> !ep.nodeHints().isEmpty())
                && ready.stream().anyMatch(ep -> ep.nodeHints().contains(nodeName))) {
            return TopologyMode.PREFER_SAME_NODE;
        }
        if (!zone.isEmpty()
                && ready.stream().allMatch(ep -> !ep.zoneHints().isEmpty())
                && ready.stream().anyMatch(ep -> ep.zoneHints().contains(zone))) {
            return TopologyMode.PREFER_SAME_ZONE;
        }
        return TopologyMode.NONE;
    }

    private static boolean availableForTopology(EndpointInfo ep, TopologyMode mode, String nodeName, String zone) {
        return switch (mode) {
            case NONE -> true;
            case PREFER_SAME_NODE -> ep.nodeHints().contains(nodeName);
            case PREFER_SAME_ZONE -> ep.zoneHints().contains(zone);
        };
    }

    private static List<EndpointInfo> filter(List<EndpointInfo> endpoints, Predicate<EndpointInfo> keep) {
        List<EndpointInfo> out = new ArrayList<>();
        for (EndpointInfo ep : endpoints) {
            if (keep.test(ep)) {
                out.add(ep);
            }
        }
        return out;
    }
}
