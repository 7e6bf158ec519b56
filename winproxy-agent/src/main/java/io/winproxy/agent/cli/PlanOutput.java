package io.winproxy.agent.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.desired.PolicyWarning;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanStep;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Renders a desired state and its plan: the JSON of {@code plan -o json} (ARCHITECTURE.md section 6; a stable
 * contract that scripts rely on) and a human-readable text form. Pure functions of their inputs.
 */
public final class PlanOutput {
    private static final ObjectMapper MAPPER = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private PlanOutput() {
    }

    /** The {@code plan -o json} document. */
    public static ObjectNode json(DesiredState desired, Plan plan) {
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode lbs = root.putArray("loadBalancers");
        for (DesiredLoadBalancer lb : sorted(desired.loadBalancers())) {
            lbs.add(loadBalancer(lb));
        }
        ArrayNode eps = root.putArray("remoteEndpoints");
        desired.remoteEndpoints().stream().sorted(Comparator.comparing(DesiredRemoteEndpoint::ip))
                .forEach(ep -> eps.add(remoteEndpoint(ep)));
        ArrayNode ops = root.putArray("operations");
        for (PlanStep step : plan.steps()) {
            ops.add(operation(step));
        }
        ArrayNode warnings = root.putArray("warnings");
        for (PolicyWarning w : desired.warnings()) {
            ObjectNode node = warnings.addObject();
            node.put("kind", w.kind());
            node.put("namespace", w.namespace());
            node.put("name", w.name());
            node.put("reason", w.reason());
            node.put("message", w.message());
        }
        ArrayNode unowned = root.putArray("unownedLoadBalancers");
        plan.unownedLoadBalancerIds().forEach(unowned::add);
        return root;
    }

    public static String jsonText(DesiredState desired, Plan plan) {
        try {
            return MAPPER.writeValueAsString(json(desired, plan));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Load balancers in a stable order: service, port name, kind, key. */
    public static List<DesiredLoadBalancer> sorted(List<DesiredLoadBalancer> lbs) {
        return lbs.stream().sorted(Comparator
                .comparing((DesiredLoadBalancer lb) -> lb.service().serviceKey())
                .thenComparing(lb -> lb.service().port())
                .thenComparing(lb -> lb.service().protocol())
                .thenComparing(DesiredLoadBalancer::kind)
                .thenComparing(lb -> lb.key().toString())).toList();
    }

    /** One load balancer as in {@code plan -o json} (also used by {@code trace}). */
    public static ObjectNode loadBalancer(DesiredLoadBalancer lb) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("service", lb.service().serviceKey());
        node.put("port", lb.service().port());
        node.put("protocol", lb.key().protocol().name());
        node.put("kind", lb.kind().displayName());
        return putHnsFields(node, lb.key(), lb.internalPort(), lb.backends(), lb.sourceVip(), lb.flags(),
                lb.portMappingFlags(), lb.distributionType());
    }

    /**
     * Appends the HNS part of a load balancer in the plan shape, {@code frontendVIPs} to {@code ipv6}, to
     * {@code node}: shared by the desired load balancers of {@code plan} and the observed ones {@code trace} shows.
     * A null key (an HNS load balancer winproxy cannot read one from) has no VIP and external port 0.
     */
    static ObjectNode putHnsFields(ObjectNode node, LoadBalancerKey key, int internalPort, List<String> backends,
                                   String sourceVip, int flags, int portMappingFlags, int distributionType) {
        ArrayNode vips = node.putArray("frontendVIPs");
        if (key != null && !key.frontendVip().isEmpty()) {
            vips.add(key.frontendVip());
        }
        node.put("externalPort", key == null ? 0 : key.externalPort());
        node.put("internalPort", internalPort);
        ArrayNode backendArray = node.putArray("backends");
        backends.forEach(backendArray::add);
        node.put("sourceVIP", sourceVip);
        node.put("flags", flags);
        node.put("portMappingFlags", portMappingFlags);
        node.put("distributionType", distributionType);
        node.put("dsr", (flags & DesiredLoadBalancer.FLAG_DSR) != 0);
        node.put("ipv6", (flags & DesiredLoadBalancer.FLAG_IPV6) != 0);
        return node;
    }

    private static ObjectNode remoteEndpoint(DesiredRemoteEndpoint ep) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("ip", ep.ip());
        node.put("providerAddress", ep.providerAddress());
        return node;
    }

    private static ObjectNode operation(PlanStep step) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("op", step.op());
        step.accept(new PlanStep.Visitor<Void>() {
            public Void createRemoteEndpoint(PlanStep.CreateRemoteEndpoint s) {
                node.set("endpoint", remoteEndpoint(s.endpoint()));
                return null;
            }

            public Void adoptRemoteEndpoint(PlanStep.AdoptRemoteEndpoint s) {
                node.put("id", s.id());
                node.set("endpoint", remoteEndpoint(s.endpoint()));
                return null;
            }

            public Void adoptLoadBalancer(PlanStep.AdoptLoadBalancer s) {
                node.put("id", s.id());
                node.set("loadBalancer", loadBalancer(s.loadBalancer()));
                return null;
            }

            public Void createLoadBalancer(PlanStep.CreateLoadBalancer s) {
                node.set("loadBalancer", loadBalancer(s.loadBalancer()));
                return null;
            }

            public Void modifyLoadBalancer(PlanStep.ModifyLoadBalancer s) {
                node.put("id", s.id());
                node.set("loadBalancer", loadBalancer(s.loadBalancer()));
                return null;
            }

            public Void replaceLoadBalancer(PlanStep.ReplaceLoadBalancer s) {
                node.put("id", s.oldId());
                node.put("unowned", s.unowned());
                node.set("loadBalancer", loadBalancer(s.loadBalancer()));
                return null;
            }

            public Void deleteLoadBalancer(PlanStep.DeleteLoadBalancer s) {
                node.put("id", s.id());
                node.put("reason", s.reason());
                return null;
            }

            public Void deleteRemoteEndpoint(PlanStep.DeleteRemoteEndpoint s) {
                node.put("id", s.id());
                node.put("ip", s.ip());
                return null;
            }
        });
        return node;
    }

    /** The text form: the load-balancer table, then the operations and warnings. */
    public static String text(DesiredState desired, Plan plan) {
        StringBuilder out = new StringBuilder();
        out.append(LoadBalancerTable.render(desired.loadBalancers()));
        if (!desired.remoteEndpoints().isEmpty()) {
            out.append("\nRemote endpoints:\n");
            desired.remoteEndpoints().stream().sorted(Comparator.comparing(DesiredRemoteEndpoint::ip))
                    .forEach(ep -> out.append("  ").append(ep.ip())
                            .append(ep.providerAddress().isEmpty() ? "" : " via " + ep.providerAddress())
                            .append('\n'));
        }
        out.append("\nOperations (").append(plan.steps().size()).append("):\n");
        if (plan.steps().isEmpty()) {
            out.append("  none: HNS already matches\n");
        }
        for (PlanStep step : plan.steps()) {
            out.append("  ").append(describe(step)).append('\n');
        }
        if (!desired.warnings().isEmpty()) {
            out.append("\nWarnings:\n");
            desired.warnings().forEach(w -> out.append("  ").append(w).append('\n'));
        }
        if (!plan.unownedLoadBalancerIds().isEmpty()) {
            out.append("\nUnowned load balancers left in place: ").append(String.join(", ",
                    plan.unownedLoadBalancerIds())).append('\n');
        }
        return out.toString();
    }

    /** One line per step, e.g. {@code create-load-balancer 10.96.0.10:53/UDP (kube-system/kube-dns:dns)}. */
    public static String describe(PlanStep step) {
        return step.op() + " " + step.accept(new PlanStep.Visitor<String>() {
            public String createRemoteEndpoint(PlanStep.CreateRemoteEndpoint s) {
                return s.endpoint().ip();
            }

            public String adoptRemoteEndpoint(PlanStep.AdoptRemoteEndpoint s) {
                return s.id() + " " + s.endpoint().ip();
            }

            public String adoptLoadBalancer(PlanStep.AdoptLoadBalancer s) {
                return s.id() + " " + lbSummary(s.loadBalancer());
            }

            public String createLoadBalancer(PlanStep.CreateLoadBalancer s) {
                return lbSummary(s.loadBalancer());
            }

            public String modifyLoadBalancer(PlanStep.ModifyLoadBalancer s) {
                return s.id() + " " + lbSummary(s.loadBalancer());
            }

            public String replaceLoadBalancer(PlanStep.ReplaceLoadBalancer s) {
                return s.oldId() + (s.unowned() ? " (unowned) " : " ") + lbSummary(s.loadBalancer());
            }

            public String deleteLoadBalancer(PlanStep.DeleteLoadBalancer s) {
                return s.id() + " (" + s.reason() + ")";
            }

            public String deleteRemoteEndpoint(PlanStep.DeleteRemoteEndpoint s) {
                return s.id() + " " + s.ip();
            }
        });
    }

    private static String lbSummary(DesiredLoadBalancer lb) {
        return String.format(Locale.ROOT, "%s -> %s (%s %s)", lb.key(), lb.backends(), lb.kind().displayName(),
                lb.service());
    }
}
