package io.winproxy.agent.dataplane;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.winproxy.hns.model.HcnPolicy;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.IpConfiguration;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.hns.model.SchemaVersion;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.HnsFlags;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.net.IpAddresses;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.LoggerFactory;

/** Pure translation between HCN documents and the policy vocabulary, in both directions. No I/O, no state. */
public final class HcnTranslator {
    static final String PROVIDER_ADDRESS = "ProviderAddress";

    private HcnTranslator() {
    }

    /**
     * An HNS endpoint as the policy sees it: lower-case ID, IPs in canonical text (HNS may render IPv6 differently
     * from how it was written), the remote flag and the overlay provider address (empty when HNS did not return it).
     */
    public static ObservedEndpoint toObserved(HostComputeEndpoint endpoint) {
        List<String> ips = new ArrayList<>();
        for (IpConfiguration ipc : endpoint.ipConfigurations()) {
            if (ipc.ipAddress() != null && !ipc.ipAddress().isEmpty()) {
                ips.add(canonicalIp(ipc.ipAddress()));
            }
        }
        return new ObservedEndpoint(HnsIds.normalize(endpoint.id()), ips, endpoint.isRemote(),
                providerAddress(endpoint).map(HcnTranslator::canonicalIp).orElse(""), "");
    }

    /** The canonical text of an IP address (IPv6 compressed, lower-case); the input when it is not an IP. */
    public static String canonicalIp(String ip) {
        return ip == null ? "" : IpAddresses.canonical(ip).orElse(ip);
    }

    /**
     * The key of a journal entry ({@code LoadBalancerKey.toString()}: {@code 10.96.0.10:53/UDP},
     * {@code [fd00::10]:53/UDP}, {@code *:30080/TCP}), or null when it cannot be read.
     */
    public static LoadBalancerKey parseKey(String text, boolean ipv6) {
        if (text == null) {
            return null;
        }
        int slash = text.lastIndexOf('/');
        int colon = slash < 0 ? -1 : text.lastIndexOf(':', slash);
        if (slash < 0 || colon < 0) {
            return null;
        }
        Optional<Protocol> protocol = Protocol.parse(text.substring(slash + 1));
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1, slash));
        } catch (NumberFormatException e) {
            return null;
        }
        String vip = text.substring(0, colon);
        if (vip.startsWith("[") && vip.endsWith("]")) {
            vip = vip.substring(1, vip.length() - 1);
        }
        if (vip.equals("*")) {
            vip = "";
        }
        String frontend = canonicalIp(vip);
        IpFamily family = frontend.isEmpty() ? (ipv6 ? IpFamily.IPV6 : IpFamily.IPV4) : IpFamily.of(frontend);
        return protocol.map(p -> new LoadBalancerKey(family, frontend, p, port)).orElse(null);
    }

    /** The value of an endpoint's {@code ProviderAddress} policy, if it has one. */
    public static Optional<String> providerAddress(HostComputeEndpoint endpoint) {
        for (HcnPolicy policy : endpoint.policies()) {
            if (PROVIDER_ADDRESS.equalsIgnoreCase(policy.type()) && policy.settings() != null) {
                Optional<String> pa = member(policy.settings(), PROVIDER_ADDRESS);
                if (pa.isPresent()) {
                    return pa;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> member(JsonNode node, String name) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equalsIgnoreCase(name) && e.getValue().isTextual()) {
                return Optional.of(e.getValue().asText());
            }
        }
        return Optional.empty();
    }

    /**
     * An HNS load balancer as the policy sees it. The key is null unless the load balancer has exactly one port
     * mapping with protocol TCP or UDP. {@code ipsByEndpointId} resolves the referenced endpoints; the IP of the
     * load balancer's family is taken for dual-stack endpoints, unknown endpoint IDs contribute no backend IP.
     */
    public static ObservedLoadBalancer toObserved(HostComputeLoadBalancer lb,
                                                  Map<String, List<String>> ipsByEndpointId) {
        return toObserved(lb, ipsByEndpointId::get);
    }

    /**
     * As {@link #toObserved(HostComputeLoadBalancer, Map)}, with the IPs of a referenced endpoint (lower-case ID)
     * looked up, or null when the endpoint is unknown.
     */
    public static ObservedLoadBalancer toObserved(HostComputeLoadBalancer lb,
                                                  Function<String, List<String>> ipsOfEndpoint) {
        IpFamily family = (lb.flags() & HostComputeLoadBalancer.FLAG_IPV6) != 0 ? IpFamily.IPV6 : IpFamily.IPV4;
        String vip = lb.frontendVips().isEmpty() ? "" : canonicalIp(lb.frontendVips().get(0));
        if (!vip.isEmpty()) {
            family = IpFamily.of(vip);
        }
        LoadBalancerKey key = null;
        int internalPort = 0;
        int portMappingFlags = 0;
        int distribution = 0;
        if (lb.portMappings().size() == 1 && lb.frontendVips().size() <= 1) {
            LoadBalancerPortMapping pm = lb.portMappings().get(0);
            Optional<Protocol> protocol = Protocol.fromNumber(pm.protocol())
                    .filter(p -> p == Protocol.TCP || p == Protocol.UDP);
            if (protocol.isPresent()) {
                key = new LoadBalancerKey(family, vip, protocol.get(), pm.externalPort());
            }
            internalPort = pm.internalPort();
            portMappingFlags = pm.flags() & HnsFlags.PM_KNOWN;
            distribution = pm.distributionType();
            unknownFlags(lb, 0, pm.flags() & ~HnsFlags.PM_KNOWN);
        }
        unknownFlags(lb, lb.flags() & ~HnsFlags.LB_KNOWN, 0);
        List<String> backendIps = new ArrayList<>();
        for (String endpointId : lb.hostComputeEndpoints()) {
            List<String> ips = ipsOfEndpoint.apply(HnsIds.normalize(endpointId));
            if (ips == null) {
                continue;
            }
            IpFamily wanted = family;
            ips.stream().filter(ip -> IpFamily.of(ip) == wanted).findFirst().ifPresent(backendIps::add);
        }
        backendIps.sort(null);
        List<String> endpointIds = lb.hostComputeEndpoints().stream().map(HnsIds::normalize).toList();
        return new ObservedLoadBalancer(HnsIds.normalize(lb.id()), key, internalPort, endpointIds, backendIps,
                canonicalIp(lb.sourceVip()), lb.flags() & HnsFlags.LB_KNOWN, portMappingFlags, distribution);
    }

    /** Whether the unknown flag bits of a read-back were logged (once per process). */
    private static final java.util.concurrent.atomic.AtomicBoolean UNKNOWN_FLAGS_LOGGED =
            new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * HNS may report flag bits winproxy never wrote (versions add their own); they are left out of every comparison,
     * and said once.
     */
    private static void unknownFlags(HostComputeLoadBalancer lb, int lbBits, int pmBits) {
        if ((lbBits != 0 || pmBits != 0) && UNKNOWN_FLAGS_LOGGED.compareAndSet(false, true)) {
            LoggerFactory.getLogger(HcnTranslator.class).info("HNS reports flag bits winproxy does not write "
                    + "(load balancer {}: flags 0x{}, port-mapping flags 0x{}); they are ignored when comparing what "
                    + "HNS holds with what is wanted", lb.id(), Integer.toHexString(lbBits), Integer.toHexString(pmBits));
        }
    }

    /**
     * The HCN create/modify document of a desired load balancer whose backends resolved to these endpoint IDs (no
     * ID: a create with the ID chosen by winproxy sets it with {@code withId}).
     */
    public static HostComputeLoadBalancer toHcn(DesiredLoadBalancer lb, List<String> endpointIds) {
        LoadBalancerKey key = lb.key();
        List<String> vips = key.frontendVip().isEmpty() ? List.of() : List.of(key.frontendVip());
        LoadBalancerPortMapping mapping = new LoadBalancerPortMapping(key.protocol().number(), lb.internalPort(),
                key.externalPort(), lb.distributionType(), lb.portMappingFlags());
        return new HostComputeLoadBalancer(null, endpointIds, lb.sourceVip(), vips, List.of(mapping),
                SchemaVersion.V2, lb.flags());
    }

    /** The HCN document of a remote endpoint (hcn-api.md's recipe); the PA policy only on overlay. */
    public static HostComputeEndpoint toHcn(DesiredRemoteEndpoint endpoint) {
        return toHcn(endpoint, providerAddressPolicies(endpoint.providerAddress()));
    }

    /**
     * As {@link #toHcn(DesiredRemoteEndpoint)}, with the policy list given: every endpoint of one node has the same
     * one, and sharing it saves a JSON tree per endpoint (see {@link PlanExecutor}).
     */
    static HostComputeEndpoint toHcn(DesiredRemoteEndpoint endpoint, List<HcnPolicy> policies) {
        return new HostComputeEndpoint(null, null, null, policies, List.of(new IpConfiguration(endpoint.ip(), 0)),
                endpoint.macAddress(), HostComputeEndpoint.FLAG_REMOTE_ENDPOINT, SchemaVersion.V2);
    }

    /** The policies of a remote endpoint with provider address {@code pa}: none on l2bridge (empty). */
    static List<HcnPolicy> providerAddressPolicies(String pa) {
        if (pa.isEmpty()) {
            return List.of();
        }
        ObjectNode settings = JsonNodeFactory.instance.objectNode().put(PROVIDER_ADDRESS, pa);
        return List.of(new HcnPolicy(PROVIDER_ADDRESS, settings));
    }
}
