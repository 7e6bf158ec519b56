package io.winproxy.hns.emulator;

import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.model.HcnPolicy;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.IpConfiguration;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the emulated HNS returns when a document is read back, as opposed to what it stores: the query results of
 * get, list and enumerate calls (including the IDs an enumerate returns and the document queried after a create that
 * let HNS choose the ID) and the document returned by a modify. Stored state, the rules and the state file are never
 * affected; lookups by ID keep working with any letter case and with or without braces.
 *
 * <p>Public sources do not say exactly which fields each Windows Server release echoes, or in which spelling. The
 * Windows Server profiles are therefore <b>the pessimistic assumptions</b>: every difference a client could trip
 * over is assumed to happen, so that a client that works against them does not depend on an echo HNS may not give.
 * Each of {@link #WS2019}, {@link #WS2022} and {@link #WS2025}:
 * <ol>
 *   <li>drops port-mapping flag 16 ({@code VipExternalIP}, defined only by kube-proxy) from the {@code Flags} of
 *       each {@code LoadBalancerPortMapping};</li>
 *   <li>drops the {@code ProviderAddress} policy from the v2 view of remote endpoints (only the v1 view shows the
 *       PA);</li>
 *   <li>renders IPv6 addresses in an equivalent but different text form, fully expanded without zero compression
 *       ({@code fd00::a} reads back as {@code fd00:0:0:0:0:0:0:a}), in {@code IpConfigurations},
 *       {@code FrontendVIPs} and {@code SourceVIP};</li>
 *   <li>returns GUIDs upper-case and without braces: the IDs of enumerate results, the {@code ID} of every
 *       document, an endpoint's {@code HostComputeNetwork} and a load balancer's {@code HostComputeEndpoints}.</li>
 * </ol>
 * {@link #WS2019} additionally drops {@code DistributionType} (session affinity, not present before HNS 12.0).
 *
 * <p>When no profile is configured, the emulator uses {@link #forVersion} of the emulated HNS version: the
 * pessimistic default. {@link #VERBATIM} returns exactly what was stored, for tests that compare documents.
 */
public enum EchoProfile {
    /** Read-back returns exactly what HNS stored (the caller's spelling of IDs and addresses, every field). */
    VERBATIM,
    /** Windows Server 2019 (HNS below 12): the common Windows Server differences, and no {@code DistributionType}. */
    WS2019,
    /** Windows Server 2022 (HNS 12 to 14): the common Windows Server differences. */
    WS2022,
    /** Windows Server 2025 (HNS 15 and later): the common Windows Server differences. */
    WS2025;

    /** The profile of an HNS version: major below 12 {@link #WS2019}, below 15 {@link #WS2022}, else {@link #WS2025}. */
    public static EchoProfile forVersion(HnsVersion version) {
        if (version.major() < 12) {
            return WS2019;
        }
        return version.major() < 15 ? WS2022 : WS2025;
    }

    /** An ID as read back: upper-case without braces, or as stored for {@link #VERBATIM}. */
    String id(String id) {
        if (this == VERBATIM || id == null) {
            return id;
        }
        return id.trim().replace("{", "").replace("}", "").toUpperCase(Locale.ROOT);
    }

    HostComputeNetwork network(HostComputeNetwork n) {
        return this == VERBATIM ? n : n.withId(id(n.id()));
    }

    HostComputeEndpoint endpoint(HostComputeEndpoint e) {
        if (this == VERBATIM) {
            return e;
        }
        List<IpConfiguration> ips = new ArrayList<>(e.ipConfigurations().size());
        for (IpConfiguration c : e.ipConfigurations()) {
            ips.add(c == null ? null : new IpConfiguration(address(c.ipAddress()), c.prefixLength()));
        }
        List<HcnPolicy> policies = e.isRemote()
                ? e.policies().stream().filter(p -> !p.isType(HcnPolicy.PROVIDER_ADDRESS)).toList()
                : e.policies();
        return new HostComputeEndpoint(id(e.id()), e.name(), id(e.hostComputeNetwork()), policies, ips,
                e.macAddress(), e.flags(), e.schemaVersion());
    }

    HostComputeLoadBalancer loadBalancer(HostComputeLoadBalancer lb) {
        if (this == VERBATIM) {
            return lb;
        }
        List<String> endpoints = lb.hostComputeEndpoints().stream().map(this::id).toList();
        List<String> vips = lb.frontendVips().stream().map(EchoProfile::address).toList();
        List<LoadBalancerPortMapping> mappings = lb.portMappings().stream()
                .map(pm -> new LoadBalancerPortMapping(pm.protocol(), pm.internalPort(), pm.externalPort(),
                        this == WS2019 ? 0 : pm.distributionType(),
                        pm.flags() & ~LoadBalancerPortMapping.FLAG_VIP_EXTERNAL_IP))
                .toList();
        return new HostComputeLoadBalancer(id(lb.id()), endpoints, address(lb.sourceVip()), vips, mappings,
                lb.schemaVersion(), lb.flags());
    }

    private static String address(String ip) {
        return ip == null || ip.indexOf(':') < 0 ? ip : Ipv6.expanded(ip);
    }
}
