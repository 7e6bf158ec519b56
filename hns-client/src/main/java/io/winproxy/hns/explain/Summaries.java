package io.winproxy.hns.explain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsErrors;
import io.winproxy.hns.HnsFeature;
import io.winproxy.hns.HnsFeatures;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.model.HcnErrorRecord;
import io.winproxy.hns.model.HcnNames;
import io.winproxy.hns.model.HcnPolicy;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.HostComputeQuery;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.hns.model.RemoteSubnetRoute;
import io.winproxy.hns.model.SchemaVersion;
import io.winproxy.hns.model.V1Endpoint;
import io.winproxy.hns.model.V1Network;
import io.winproxy.hns.model.V1PolicyList;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Readable and structured summaries of each decoded document kind (the explainer's output). */
final class Summaries {
    private static final Function<String, String> NO_IPS = id -> null;

    private Summaries() {
    }

    static Explanation loadBalancer(HostComputeLoadBalancer lb, String kind, List<String> notes) {
        LoadBalancerPortMapping pm = LoadBalancerView.mapping(lb);
        StringBuilder t = new StringBuilder();
        t.append(kind.equals("policy-list") ? "v1 policy list (ELB)" : "Load balancer").append(' ')
                .append(orDash(lb.id())).append('\n');
        line(t, "Frontend", LoadBalancerView.frontend(lb)
                + (lb.frontendVips().isEmpty() ? "  (no VIP: every host address, NodePort-style)" : ""));
        line(t, "Backends", lb.hostComputeEndpoints().size() + " endpoint(s), target port " + pm.internalPort());
        for (String id : lb.hostComputeEndpoints()) {
            t.append("      ").append(id).append('\n');
        }
        line(t, "Source VIP", orDash(lb.sourceVip()));
        line(t, "Flags", orDash(HcnNames.loadBalancerFlags(lb.flags())));
        line(t, "Port mapping", orDash(HcnNames.portMappingFlags(pm.flags())));
        line(t, "Distribution", HcnNames.distributionType(pm.distributionType()));
        if (lb.portMappings().size() > 1) {
            line(t, "Note", lb.portMappings().size() + " port mappings; kube-proxy always sends exactly one");
        }
        ObjectNode json = LoadBalancerView.json(lb, NO_IPS);
        json.put("kind", kind);
        return finish(kind, t, json, notes);
    }

    static Explanation policyList(V1PolicyList list, List<String> notes) {
        HostComputeLoadBalancer lb = list.toLoadBalancer().orElseThrow(() -> new IllegalArgumentException(
                "v1 policy list " + orDash(list.id()) + " has no ELB policy (route-only policy lists are not "
                        + "load balancers)"));
        return loadBalancer(lb, "policy-list", notes);
    }

    static Explanation endpoint(HostComputeEndpoint ep, String kind, String state, List<String> notes) {
        StringBuilder t = new StringBuilder();
        t.append(kind.equals("v1-endpoint") ? "v1 endpoint " : "Endpoint ").append(orDash(ep.id())).append('\n');
        line(t, "Name", orDash(ep.name()));
        line(t, "Network", orDash(ep.hostComputeNetwork()));
        line(t, "IP", ep.ipAddresses().isEmpty() ? "-" : String.join(", ", ep.ipAddresses()));
        line(t, "MAC", orDash(ep.macAddress()));
        line(t, "Locality", ep.isRemote() ? "remote (lives on another host)" : "local (on this host)");
        line(t, "Provider address", ep.providerAddress().orElse("-"));
        line(t, "Flags", orDash(HcnNames.endpointFlags(ep.flags())));
        if (state != null) {
            line(t, "State", state);
        }
        ObjectNode json = node();
        json.put("kind", kind);
        putIfNotNull(json, "id", ep.id());
        putIfNotNull(json, "name", ep.name());
        putIfNotNull(json, "network", ep.hostComputeNetwork());
        LoadBalancerView.strings(json.putArray("ips"), ep.ipAddresses());
        putIfNotNull(json, "mac", ep.macAddress());
        json.put("remote", ep.isRemote());
        putIfNotNull(json, "providerAddress", ep.providerAddress().orElse(null));
        LoadBalancerView.strings(json.putArray("flags"), HcnNames.endpointFlagList(ep.flags()));
        putIfNotNull(json, "state", state);
        return finish(kind, t, json, notes);
    }

    static Explanation v1Endpoint(V1Endpoint ep, List<String> notes) {
        return endpoint(ep.toEndpoint(), "v1-endpoint", ep.stateName(), notes);
    }

    static Explanation network(HostComputeNetwork net, String kind, String managementIp, List<String> notes) {
        StringBuilder t = new StringBuilder();
        t.append(kind.equals("v1-network") ? "v1 network " : "Network ").append(orDash(net.id())).append('\n');
        line(t, "Name", orDash(net.name()));
        line(t, "Type", net.type());
        line(t, "Subnets", net.subnetPrefixes().isEmpty() ? "-" : String.join(", ", net.subnetPrefixes()));
        line(t, "Provider address", net.providerAddress().or(() -> java.util.Optional.ofNullable(managementIp))
                .orElse("-"));
        line(t, "DR MAC", net.drMacAddress().orElse("-"));
        List<RemoteSubnetRoute> routes = net.remoteSubnetRoutes();
        line(t, "Remote subnets", Integer.toString(routes.size()));
        for (RemoteSubnetRoute r : routes) {
            t.append("      ").append(r.destinationPrefix()).append(" via ").append(orDash(r.providerAddress()))
                    .append(r.isolationId() != 0 ? " (VSID " + r.isolationId() + ")" : "").append('\n');
        }
        ObjectNode json = node();
        json.put("kind", kind);
        putIfNotNull(json, "id", net.id());
        putIfNotNull(json, "name", net.name());
        json.put("type", net.type());
        LoadBalancerView.strings(json.putArray("subnets"), net.subnetPrefixes());
        putIfNotNull(json, "providerAddress", net.providerAddress().orElse(managementIp));
        putIfNotNull(json, "drMacAddress", net.drMacAddress().orElse(null));
        ArrayNode rs = json.putArray("remoteSubnets");
        for (RemoteSubnetRoute r : routes) {
            ObjectNode o = rs.addObject().put("destinationPrefix", r.destinationPrefix());
            putIfNotNull(o, "providerAddress", r.providerAddress().isEmpty() ? null : r.providerAddress());
            o.put("isolationId", r.isolationId());
        }
        return finish(kind, t, json, notes);
    }

    /**
     * A v1 network; {@code drMacAddress} is its top-level {@code DrMacAddress} member (overlay networks), which
     * the v1 view carries outside the policies, or null.
     */
    static Explanation v1Network(V1Network net, String drMacAddress, List<String> notes) {
        HostComputeNetwork v2 = net.toNetwork();
        if (drMacAddress != null && !drMacAddress.isBlank() && v2.drMacAddress().isEmpty()) {
            List<HcnPolicy> policies = new ArrayList<>(v2.policies());
            policies.add(HcnPolicy.drMacAddress(drMacAddress));
            v2 = v2.withPolicies(policies);
        }
        return network(v2, "v1-network", net.managementIp(), notes);
    }

    static Explanation errorRecord(HcnErrorRecord rec, List<String> notes) {
        int hr = rec.hresult();
        StringBuilder t = new StringBuilder();
        t.append("HNS error ").append(HResults.describe(hr)).append('\n');
        line(t, "Message", rec.error().isBlank() ? "-" : rec.error().trim());
        HResults.message(hr).ifPresent(m -> line(t, "Meaning", m));
        HnsErrors.Diagnosis d = HnsErrors.diagnose(hr);
        line(t, "Likely cause", d.cause());
        line(t, "Fix", d.fix());
        ObjectNode json = node();
        json.put("kind", "error-record");
        json.put("success", rec.success());
        json.put("hresult", HResults.hex(hr));
        json.put("name", HResults.name(hr));
        json.put("message", rec.error().trim());
        json.put("cause", d.cause());
        json.put("fix", d.fix());
        json.put("errorLabel", d.errorLabel());
        return finish("error-record", t, json, notes);
    }

    static Explanation query(HostComputeQuery q, Map<String, String> filter, List<String> notes) {
        StringBuilder t = new StringBuilder();
        t.append("HCN query\n");
        SchemaVersion sv = q.schemaVersion() == null ? SchemaVersion.V2 : q.schemaVersion();
        line(t, "View", "schema " + sv.major() + "." + sv.minor() + (sv.major() == 1 ? " (v1 view)" : " (v2 view)"));
        line(t, "Detail", (q.flags() & HostComputeQuery.FLAG_DETAILED) != 0 ? "detailed" : "standard");
        line(t, "Filter", filter.isEmpty() ? "none (every object)" : filter.entrySet().stream()
                .map(e -> e.getKey() + " = " + e.getValue()).collect(Collectors.joining(", ")));
        ObjectNode json = node();
        json.put("kind", "query");
        json.put("schemaVersion", sv.major() + "." + sv.minor());
        json.put("detailed", (q.flags() & HostComputeQuery.FLAG_DETAILED) != 0);
        ObjectNode f = json.putObject("filter");
        filter.forEach(f::put);
        return finish("query", t, json, notes);
    }

    static Explanation version(HnsVersion v, List<String> notes) {
        StringBuilder t = new StringBuilder();
        t.append("HNS version ").append(v).append('\n');
        String features = HnsFeatures.supported(v).stream().map(HnsFeature::hcsshimName)
                .collect(Collectors.joining(", "));
        line(t, "Features", features.isEmpty() ? "-" : features);
        ObjectNode json = node();
        json.put("kind", "hns-version");
        json.put("version", v.toString());
        ArrayNode f = json.putArray("features");
        HnsFeatures.supported(v).forEach(x -> f.add(x.hcsshimName()));
        return finish("hns-version", t, json, notes);
    }

    static Explanation hnsCall(boolean success, String error, Explanation output, List<String> notes) {
        StringBuilder t = new StringBuilder();
        t.append("HNSCall response: ").append(success ? "success" : "failure").append('\n');
        if (!error.isBlank()) {
            line(t, "Error", error.trim());
        }
        ObjectNode json = node();
        json.put("kind", "hns-call");
        json.put("success", success);
        if (!error.isBlank()) {
            json.put("error", error.trim());
        }
        if (output != null) {
            t.append('\n').append(output.text());
            json.set("output", output.json());
        }
        return finish("hns-call", t, json, notes);
    }

    static Explanation list(List<Explanation> items) {
        StringBuilder t = new StringBuilder();
        t.append(items.size()).append(" documents\n");
        ObjectNode json = node();
        json.put("kind", "list");
        ArrayNode arr = json.putArray("items");
        for (Explanation e : items) {
            t.append('\n').append(e.text());
            arr.add(e.json());
        }
        return new Explanation("list", t.toString(), json);
    }

    private static Explanation finish(String kind, StringBuilder t, ObjectNode json, List<String> notes) {
        if (!notes.isEmpty()) {
            ArrayNode w = json.putArray("warnings");
            for (String n : notes) {
                line(t, "Warning", n);
                w.add(n);
            }
        }
        return new Explanation(kind, t.toString(), json);
    }

    private static void line(StringBuilder t, String label, String value) {
        t.append("  ").append(label).append(':').append(" ".repeat(Math.max(1, 18 - label.length())))
                .append(value).append('\n');
    }

    private static String orDash(String s) {
        return s == null || s.isBlank() ? "-" : s;
    }

    private static ObjectNode node() {
        return JsonNodeFactory.instance.objectNode();
    }

    private static void putIfNotNull(ObjectNode o, String name, String value) {
        if (value != null && !value.isEmpty()) {
            o.put(name, value);
        }
    }

    static boolean isVersionObject(JsonNode n) {
        return n != null && n.isObject() && n.size() == 2 && n.has("Major") && n.has("Minor");
    }
}
