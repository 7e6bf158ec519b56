package io.winproxy.hns.emulator;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsFeatures;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.util.List;
import java.util.Objects;

/**
 * The validation HNS applies to create/modify/delete requests, as far as public sources show it. Each check
 * returns normally or throws {@link RuleViolation} with the HRESULT HNS returns (hcn-api.md section 4.3):
 * <ul>
 *   <li>load balancer without port mapping: {@code HCN_E_INVALID_POLICY} (no public sample; chosen because the ELB
 *       policy is then incomplete);</li>
 *   <li>internal port 0: {@code HCN_E_INVALID_INTERNAL_PORT};</li>
 *   <li>no endpoint reference, or one to an unknown endpoint: {@code HCN_E_INVALID_JSON_REFERENCE}
 *       ("A Reference is required", projectcalico/calico#5762);</li>
 *   <li>the DSR flag where the version lacks DSR, the IPv6 flag where it lacks IPv6DualStack:
 *       {@code HCN_E_REQUEST_UNSUPPORTED} ("The specified request is unsupported"; hcsshim refuses these client-side
 *       with "platform does not support feature", so no HNS code is documented; this is the HCN code whose meaning
 *       fits);</li>
 *   <li>a second load balancer with the same frontend VIP + protocol + external port (VIPs compared as addresses:
 *       letter case and IPv6 spelling do not matter), or a second VIP-less (NodePort-style) one with the same
 *       protocol + port and address family: {@code HCN_E_PORT_ALREADY_EXISTS};</li>
 *   <li>a create with a caller-chosen ID that a network, endpoint or load balancer already has:
 *       {@code ERROR_ALREADY_EXISTS} (0x800700B7; no public sample, the Win32 code whose meaning fits);</li>
 *   <li>deleting an endpoint that a load balancer still references: {@code HCN_E_ENTITY_HAS_REFERENCES} ("cannot
 *       be removed while it still has references"; inferred from the message, as the spec notes);</li>
 *   <li>deleting a network that still has endpoints: {@code HCN_E_ENTITY_HAS_REFERENCES};</li>
 *   <li>a network name already in use: {@code HCN_E_NETWORK_ALREADY_EXISTS}; an unknown network type:
 *       {@code HCN_E_INVALID_NETWORK_TYPE};</li>
 *   <li>a load balancer with more destinations (endpoint references) than the profile's limit
 *       ({@link HnsLimits}): {@code E_INVALIDARG} "invalid number of destinations" (kubernetes#98680);</li>
 *   <li>a non-DSR load balancer create when the dynamic port pool has no range of
 *       {@value HnsLimits#PORTS_PER_LOAD_BALANCER} ports left: {@code HCN_E_PORT_ALREADY_EXISTS}
 *       (microsoft/hcsshim#1043);</li>
 *   <li>an endpoint IP that is not an IP literal, or a local endpoint outside every subnet of its network:
 *       {@code HCN_E_INVALID_IP}.</li>
 * </ul>
 * Checks on endpoints and load balancers are answered from the store's indexes (O(1) or O(log n) per call), never
 * by scanning every object; only the network checks look at every network (a host has a handful).
 * Two endpoints with one IP are allowed (WS2019/2022 can end up with them; winkernel-semantics.md section 2.5).
 */
final class EmulatorRules {
    private static final List<String> NETWORK_TYPES = List.of("NAT", "ICS", "Transparent", "L2Bridge", "L2Tunnel",
            "Overlay", "Private", "Internal", "Mirrored", "Infiniband", "ConstrainedICS");

    private EmulatorRules() {
    }

    /** A rule HNS enforces was broken; {@code hresult} is what HNS returns. */
    static final class RuleViolation extends RuntimeException {
        final int hresult;

        RuleViolation(int hresult, String message) {
            super(message, null, false, false);
            this.hresult = hresult;
        }
    }

    /** Checks a create ({@code selfId} null) or modify ({@code selfId} = the LB being replaced) request. */
    static void checkLoadBalancer(EmulatorStore store, HostComputeLoadBalancer lb, String selfId) {
        checkLoadBalancer(store, lb, selfId, false);
    }

    /**
     * As {@link #checkLoadBalancer(EmulatorStore, HostComputeLoadBalancer, String)}; with {@code collisionAlreadyExists}
     * (the {@link HnsVariant#DUPLICATE_FRONTEND} variant, on create) a taken frontend fails with
     * {@code ERROR_ALREADY_EXISTS} instead of {@code HCN_E_PORT_ALREADY_EXISTS}.
     */
    static void checkLoadBalancer(EmulatorStore store, HostComputeLoadBalancer lb, String selfId,
                                  boolean collisionAlreadyExists) {
        if (lb.portMappings().isEmpty()) {
            throw new RuleViolation(HResults.HCN_E_INVALID_POLICY, "The load balancer has no port mapping");
        }
        for (LoadBalancerPortMapping pm : lb.portMappings()) {
            if (pm.internalPort() == 0) {
                throw new RuleViolation(HResults.HCN_E_INVALID_INTERNAL_PORT,
                        "The internal port must exist and cannot be zero");
            }
        }
        if (lb.hostComputeEndpoints().isEmpty()) {
            throw new RuleViolation(HResults.HCN_E_INVALID_JSON_REFERENCE, "A Reference is required");
        }
        for (String ep : lb.hostComputeEndpoints()) {
            if (store.endpoint(ep).isEmpty()) {
                throw new RuleViolation(HResults.HCN_E_INVALID_JSON_REFERENCE,
                        "The reference is invalid in the JSON document: endpoint " + ep);
            }
        }
        HnsCapabilities caps = HnsFeatures.forVersion(store.version());
        if (lb.isDsr() && !caps.dsr()) {
            throw new RuleViolation(HResults.HCN_E_REQUEST_UNSUPPORTED,
                    "DSR is not supported by HNS " + store.version());
        }
        if (lb.isIpv6() && !caps.ipv6DualStack()) {
            throw new RuleViolation(HResults.HCN_E_REQUEST_UNSUPPORTED,
                    "IPv6 load balancers are not supported by HNS " + store.version());
        }
        store.collidingLoadBalancer(lb, selfId).ifPresent(other -> {
            if (collisionAlreadyExists) {
                throw new RuleViolation(HResults.ERROR_ALREADY_EXISTS,
                        "Cannot create a file when that file already exists.");
            }
            throw new RuleViolation(HResults.HCN_E_PORT_ALREADY_EXISTS,
                    "The specified port already exists (load balancer " + other.id() + ")");
        });
    }

    /** More destinations than the host's limit: E_INVALIDARG, as Windows Server 2019 answers (kubernetes#98680). */
    static void checkDestinations(HostComputeLoadBalancer lb, int limit) {
        if (lb.hostComputeEndpoints().size() > limit) {
            throw new RuleViolation(HResults.E_INVALIDARG, "invalid number of destinations");
        }
    }

    /** A new non-DSR load balancer needs a range of the dynamic port pool ({@code limits} as before the create). */
    static void checkPortPool(HostComputeLoadBalancer lb, HnsLimits limits) {
        if (!lb.isDsr() && limits.portPoolLimited() && limits.loadBalancerHeadroom() < 1) {
            throw new RuleViolation(HResults.HCN_E_PORT_ALREADY_EXISTS, "The specified port already exists.");
        }
    }

    /** A create with a caller-chosen ID (null: none) under {@link HnsVariant#IDS_REJECTED}: E_INVALIDARG. */
    static void checkCallerIdAccepted(EmulatorStore store, String id) {
        if (id != null && store.hasVariant(HnsVariant.IDS_REJECTED)) {
            throw new RuleViolation(HResults.E_INVALIDARG, "The parameter is incorrect.");
        }
    }

    /** A create with a caller-chosen ID (null: none) that some object already has. */
    static void checkIdFree(EmulatorStore store, String id) {
        if (id != null && store.idInUse(id)) {
            throw new RuleViolation(HResults.ERROR_ALREADY_EXISTS, "An object with ID " + id + " already exists");
        }
    }

    static void checkEndpointDelete(EmulatorStore store, String id) {
        List<HostComputeLoadBalancer> users = store.loadBalancersReferencing(id);
        if (!users.isEmpty()) {
            throw new RuleViolation(HResults.HCN_E_ENTITY_HAS_REFERENCES,
                    "The endpoint is still referenced by load balancer " + users.get(0).id());
        }
    }

    static void checkNetworkDelete(EmulatorStore store, String id) {
        if (store.hasEndpoints(id)) {
            throw new RuleViolation(HResults.HCN_E_ENTITY_HAS_REFERENCES, "The network still has endpoints");
        }
    }

    static void checkNetworkCreate(EmulatorStore store, HostComputeNetwork n) {
        if (n.name() == null || n.name().isBlank()) {
            throw new RuleViolation(HResults.HCN_E_INVALID_NETWORK, "The network has no name");
        }
        if (NETWORK_TYPES.stream().noneMatch(t -> t.equalsIgnoreCase(n.type()))) {
            throw new RuleViolation(HResults.HCN_E_INVALID_NETWORK_TYPE, "Invalid network type " + n.type());
        }
        boolean taken = store.networks().stream().anyMatch(o -> Objects.equals(o.name(), n.name())
                && (n.id() == null || !EmulatorStore.key(o.id()).equals(EmulatorStore.key(n.id()))));
        if (taken) {
            throw new RuleViolation(HResults.HCN_E_NETWORK_ALREADY_EXISTS,
                    "A network with this name already exists: " + n.name());
        }
    }

    /** Checks an endpoint's addresses against its network (after IPAM allocation). */
    static void checkEndpoint(HostComputeNetwork network, HostComputeEndpoint ep) {
        if (ep.ipAddresses().isEmpty()) {
            throw new RuleViolation(HResults.HCN_E_INVALID_IP, "The endpoint has no IP address");
        }
        for (String ip : ep.ipAddresses()) {
            if (Ipv4.parse(ip).isEmpty() && !Ipv4.isIpv6Literal(ip)) {
                throw new RuleViolation(HResults.HCN_E_INVALID_IP, "IP address is invalid: " + ip);
            }
        }
        List<String> v4Subnets = network.subnetPrefixes().stream().filter(p -> Ipv4.range(p).isPresent()).toList();
        String ip = ep.ipAddresses().get(0);
        if (!ep.isRemote() && !v4Subnets.isEmpty() && Ipv4.parse(ip).isPresent()
                && v4Subnets.stream().noneMatch(p -> Ipv4.contains(p, ip))) {
            throw new RuleViolation(HResults.HCN_E_INVALID_IP,
                    "IP address " + ip + " is not part of any configured subnet of network " + network.name());
        }
    }
}
