package io.winproxy.policy.plan;

import io.winproxy.policy.desired.HnsFlags;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An HNS load balancer as observed on the host. {@code key} is null when the load balancer cannot be expressed in
 * policy vocabulary (no or several port mappings, a protocol other than TCP/UDP); such objects are never adopted.
 *
 * <p>Two sources describe it, and either may be absent:
 * <ul>
 *   <li>{@code fingerprint}: for a load balancer winproxy owns, the {@link Fingerprints fingerprint} the ownership
 *       journal recorded when winproxy wrote it (null when not owned, or owned by a journal that predates
 *       fingerprints). An owned load balancer is up to date when its fingerprint equals the desired one; no document
 *       read is needed.</li>
 *   <li>the document fields ({@code read} true): {@code internalPort}, {@code endpointIds} (what HNS holds,
 *       lower-case), {@code backendIps} (the IPs of the referenced endpoints that exist), {@code sourceVip},
 *       {@code flags}, {@code portMappingFlags}, {@code distributionType}, as HNS returned them. Read for objects
 *       winproxy does not own and, on a rolling budget, for owned ones (content drift). A field HNS omits on read-back
 *       is 0 or empty.</li>
 * </ul>
 */
public record ObservedLoadBalancer(String id, LoadBalancerKey key, int internalPort, List<String> endpointIds,
                                   List<String> backendIps, String sourceVip, int flags, int portMappingFlags,
                                   int distributionType, String fingerprint, boolean read) {
    public ObservedLoadBalancer {
        endpointIds = List.copyOf(endpointIds);
        backendIps = List.copyOf(backendIps);
        sourceVip = sourceVip == null ? "" : sourceVip;
    }

    /** A load balancer read from HNS (no journal fingerprint). */
    public ObservedLoadBalancer(String id, LoadBalancerKey key, int internalPort, List<String> endpointIds,
                                List<String> backendIps, String sourceVip, int flags, int portMappingFlags,
                                int distributionType) {
        this(id, key, internalPort, endpointIds, backendIps, sourceVip, flags, portMappingFlags, distributionType,
                null, true);
    }

    /** An owned load balancer known only from the journal: its key and fingerprint, no document. */
    public static ObservedLoadBalancer journaled(String id, LoadBalancerKey key, String fingerprint) {
        return new ObservedLoadBalancer(id, key, 0, List.of(), List.of(), "", 0, 0, 0, fingerprint, false);
    }

    /** This load balancer with the journal's fingerprint attached (an owned one whose document was read). */
    public ObservedLoadBalancer withFingerprint(String journalFingerprint) {
        return new ObservedLoadBalancer(id, key, internalPort, endpointIds, backendIps, sourceVip, flags,
                portMappingFlags, distributionType, journalFingerprint, read);
    }

    /**
     * Translates the fields of an HCN load balancer. The family is IPv6 when the LB flags carry IPv6 (2), else that
     * of the frontend VIP, else IPv4; {@code backendIps} are the IPs of that family of the referenced endpoints found
     * in {@code endpointsById} (missing endpoints are left out, so the LB does not match a desired one).
     *
     * @param frontendVips     {@code FrontendVIPs} (zero or one entry for a policy-expressible LB)
     * @param portMappings     {@code PortMappings}; exactly one is expressible
     * @param endpointIds      {@code HostComputeEndpoints}
     * @param endpointsById    the network's endpoints by ID
     */
    public static ObservedLoadBalancer fromHns(String id, List<String> frontendVips, List<PortMapping> portMappings,
                                               int flags, String sourceVip, List<String> endpointIds,
                                               Map<String, ObservedEndpoint> endpointsById) {
        IpFamily family = (flags & HnsFlags.LB_IPV6) != 0 ? IpFamily.IPV6
                : frontendVips.isEmpty() ? IpFamily.IPV4 : IpFamily.of(frontendVips.get(0));
        List<String> ips = new ArrayList<>();
        for (String endpointId : endpointIds) {
            ObservedEndpoint ep = endpointsById.get(endpointId);
            if (ep != null) {
                ep.ip(family).ifPresent(ips::add);
            }
        }
        LoadBalancerKey key = null;
        int internalPort = 0;
        int pmFlags = 0;
        int distribution = 0;
        if (!portMappings.isEmpty()) {
            PortMapping pm = portMappings.get(0);
            internalPort = pm.internalPort();
            pmFlags = pm.flags();
            distribution = pm.distributionType();
            Optional<Protocol> protocol = Protocol.fromNumber(pm.protocol());
            if (portMappings.size() == 1 && frontendVips.size() <= 1 && protocol.isPresent()
                    && protocol.get() != Protocol.SCTP) {
                key = new LoadBalancerKey(family, frontendVips.isEmpty() ? "" : frontendVips.get(0), protocol.get(),
                        pm.externalPort());
            }
        }
        return new ObservedLoadBalancer(id, key, internalPort, endpointIds, ips, sourceVip, flags, pmFlags,
                distribution);
    }

    /** One HCN port mapping: protocol number (6 TCP, 17 UDP), ports, flags and distribution type. */
    public record PortMapping(int protocol, int internalPort, int externalPort, int flags, int distributionType) {
    }

    public boolean dsr() {
        return (flags & HnsFlags.LB_DSR) != 0;
    }
}
