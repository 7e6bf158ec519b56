package io.winproxy.hns.explain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.RemoteSubnetRoute;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The logic of {@code hns list}: one snapshot of the networks, endpoints and load balancers of an HNS, each load
 * balancer joined with the endpoint IPs of its backends and with the service port it serves.
 *
 * <p>Reads only: {@code listNetworks} once, {@code listEndpoints} once per network and {@code listLoadBalancers}
 * once. An immutable value; {@link #text()} and {@link #json()} render the same snapshot.
 */
public final class HnsListing {
    private final String version;
    private final List<HostComputeNetwork> networks;
    private final List<HostComputeEndpoint> endpoints;
    private final List<HostComputeLoadBalancer> loadBalancers;
    private final Map<String, String> labels;
    private final Map<String, String> endpointIps;
    private final Map<String, String> networkNames;

    private HnsListing(String version, List<HostComputeNetwork> networks, List<HostComputeEndpoint> endpoints,
                       List<HostComputeLoadBalancer> loadBalancers, Map<String, String> labels) {
        this.version = version;
        this.networks = List.copyOf(networks);
        this.endpoints = List.copyOf(endpoints);
        this.loadBalancers = List.copyOf(loadBalancers);
        this.labels = Map.copyOf(labels);
        this.endpointIps = new HashMap<>();
        for (HostComputeEndpoint ep : endpoints) {
            ep.ipAddress().ifPresent(ip -> endpointIps.put(key(ep.id()), ip));
        }
        this.networkNames = new HashMap<>();
        for (HostComputeNetwork n : networks) {
            networkNames.put(key(n.id()), n.name());
        }
    }

    /**
     * Reads everything from {@code hns}. {@code loadBalancerLabel} maps a load balancer ID to the
     * {@code "ns/name:port"} of the service port that owns it (from the agent's journal), or returns null when unknown.
     */
    public static HnsListing collect(HnsClient hns, Function<String, String> loadBalancerLabel) {
        HnsCapabilities caps = hns.capabilities();
        List<HostComputeNetwork> networks = hns.listNetworks();
        List<HostComputeEndpoint> endpoints = new ArrayList<>();
        for (HostComputeNetwork n : networks) {
            endpoints.addAll(hns.listEndpoints(n.id()));
        }
        List<HostComputeLoadBalancer> lbs = new ArrayList<>(hns.listLoadBalancers());
        Map<String, String> labels = new HashMap<>();
        for (HostComputeLoadBalancer lb : lbs) {
            String label = loadBalancerLabel == null ? null : loadBalancerLabel.apply(lb.id());
            if (label != null && !label.isBlank()) {
                labels.put(key(lb.id()), label);
            }
        }
        lbs.sort(Comparator.comparing((HostComputeLoadBalancer lb) -> labels.getOrDefault(key(lb.id()), "~"))
                .thenComparing(LoadBalancerView::frontend));
        return new HnsListing(caps.version().toString(), networks, endpoints, lbs, labels);
    }

    public List<HostComputeNetwork> networks() {
        return networks;
    }

    public List<HostComputeEndpoint> endpoints() {
        return endpoints;
    }

    public List<HostComputeLoadBalancer> loadBalancers() {
        return loadBalancers;
    }

    /** Readable tables: networks, endpoints (local/remote, PA) and load balancers. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        sb.append("HNS ").append(version).append(": ").append(networks.size()).append(" network(s), ")
                .append(endpoints.size()).append(" endpoint(s), ").append(loadBalancers.size())
                .append(" load balancer(s)\n\nNETWORKS\n");
        TextTable nt = new TextTable("NAME", "TYPE", "SUBNETS", "PROVIDER ADDRESS", "REMOTE SUBNETS", "ID");
        for (HostComputeNetwork n : networks) {
            nt.row(n.name(), n.type(), String.join(",", n.subnetPrefixes()), n.providerAddress().orElse(""),
                    Integer.toString(n.remoteSubnetRoutes().size()), n.id());
        }
        sb.append(nt.isEmpty() ? "(none)\n" : nt.render());
        sb.append("\nENDPOINTS\n");
        TextTable et = new TextTable("IP", "LOCALITY", "PROVIDER ADDRESS", "MAC", "NETWORK", "NAME", "ID");
        for (HostComputeEndpoint ep : endpoints) {
            et.row(String.join(",", ep.ipAddresses()), ep.isRemote() ? "remote" : "local",
                    ep.providerAddress().orElse(""), ep.macAddress(),
                    networkNames.getOrDefault(key(ep.hostComputeNetwork()), ep.hostComputeNetwork()), ep.name(),
                    ep.id());
        }
        sb.append(et.isEmpty() ? "(none)\n" : et.render());
        sb.append("\nLOAD BALANCERS\n");
        TextTable lt = new TextTable("FRONTEND", "BACKENDS", "FLAGS", "SERVICE", "ID");
        for (HostComputeLoadBalancer lb : loadBalancers) {
            List<String> backends = LoadBalancerView.backends(lb, id -> endpointIps.get(key(id)));
            lt.row(LoadBalancerView.frontend(lb), backends.isEmpty() ? "(none)" : String.join(",", backends),
                    LoadBalancerView.flags(lb), labels.get(key(lb.id())), lb.id());
        }
        sb.append(lt.isEmpty() ? "(none)\n" : lt.render());
        return sb.toString();
    }

    /** The same snapshot as {@code {"hnsVersion", "networks", "endpoints", "loadBalancers"}}. */
    public JsonNode json() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        root.put("hnsVersion", version);
        ArrayNode ns = root.putArray("networks");
        for (HostComputeNetwork n : networks) {
            ObjectNode o = ns.addObject().put("id", n.id()).put("name", n.name()).put("type", n.type());
            LoadBalancerView.strings(o.putArray("subnets"), n.subnetPrefixes());
            n.providerAddress().ifPresent(pa -> o.put("providerAddress", pa));
            ArrayNode rs = o.putArray("remoteSubnets");
            for (RemoteSubnetRoute r : n.remoteSubnetRoutes()) {
                ObjectNode ro = rs.addObject().put("destinationPrefix", r.destinationPrefix());
                if (!r.providerAddress().isEmpty()) {
                    ro.put("providerAddress", r.providerAddress());
                }
            }
        }
        ArrayNode es = root.putArray("endpoints");
        for (HostComputeEndpoint ep : endpoints) {
            ObjectNode o = es.addObject().put("id", ep.id());
            if (ep.name() != null) {
                o.put("name", ep.name());
            }
            o.put("network", ep.hostComputeNetwork());
            o.put("ip", ep.ipAddress().orElse(""));
            LoadBalancerView.strings(o.putArray("ips"), ep.ipAddresses());
            o.put("mac", ep.macAddress());
            o.put("remote", ep.isRemote());
            ep.providerAddress().ifPresent(pa -> o.put("providerAddress", pa));
        }
        ArrayNode ls = root.putArray("loadBalancers");
        for (HostComputeLoadBalancer lb : loadBalancers) {
            ObjectNode o = LoadBalancerView.json(lb, id -> endpointIps.get(key(id)));
            String label = labels.get(key(lb.id()));
            if (label != null) {
                o.put("service", label);
            } else {
                o.putNull("service");
            }
            ls.add(o);
        }
        return root;
    }

    private static String key(String id) {
        return id == null ? "" : id.toLowerCase(Locale.ROOT);
    }
}
