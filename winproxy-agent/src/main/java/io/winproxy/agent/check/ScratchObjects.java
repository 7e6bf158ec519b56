package io.winproxy.agent.check;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.Ownership;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The objects {@code check --probe-hns} creates, recognisable without its memory: load balancers on the TEST-NET-1
 * frontend {@value #VIP} (RFC 5737: no Service, no traffic) with an external port from {@value #FIRST_PORT} to
 * {@value #LAST_PORT} and internal port {@value #INTERNAL_PORT}, and remote endpoints with IPs {@value #ENDPOINT_IP_1}
 * or {@value #ENDPOINT_IP_2} and the MAC {@value #MAC} ("wnpr"). Their IDs carry winproxy's mark when HNS honours a
 * caller's GUID; the frontend and MAC identify them when it does not. {@link #sweep} deletes what a probe that died
 * left behind, and nothing else: the next probe and the agent at start-up call it.
 */
public final class ScratchObjects {
    private static final Logger logger = LoggerFactory.getLogger(ScratchObjects.class);
    public static final String VIP = "192.0.2.1";
    public static final int FIRST_PORT = 9000;
    public static final int LAST_PORT = 9099;
    public static final int INTERNAL_PORT = 9;
    public static final String ENDPOINT_IP_1 = "192.0.2.201";
    public static final String ENDPOINT_IP_2 = "192.0.2.202";
    public static final String MAC = "02-77-6e-70-72-00";

    private ScratchObjects() {
    }

    /** A scratch load balancer document: TCP {@value #VIP}:{@code port} to {@code endpoints}. */
    static HostComputeLoadBalancer loadBalancer(String id, List<String> endpoints, int port, int flags) {
        return HostComputeLoadBalancer.of(endpoints, "", VIP, new LoadBalancerPortMapping(
                LoadBalancerPortMapping.PROTOCOL_TCP, INTERNAL_PORT, port, 0, 0), flags).withId(id);
    }

    /** A scratch remote endpoint document on {@code networkId}. */
    static HostComputeEndpoint endpoint(String id, String networkId, String ip, String providerAddress) {
        return HostComputeEndpoint.remote(networkId, ip, MAC, providerAddress).withId(id);
    }

    public static boolean isScratch(HostComputeLoadBalancer lb) {
        Optional<LoadBalancerPortMapping> pm = lb.portMapping();
        return lb.frontendVips().size() == 1 && VIP.equals(lb.frontendVips().get(0)) && pm.isPresent()
                && pm.get().externalPort() >= FIRST_PORT && pm.get().externalPort() <= LAST_PORT
                && pm.get().internalPort() == INTERNAL_PORT;
    }

    public static boolean isScratch(HostComputeEndpoint ep) {
        String ip = ep.ipAddress().orElse("");
        return ep.isRemote() && (ENDPOINT_IP_1.equals(ip) || ENDPOINT_IP_2.equals(ip)) && ep.macAddress() != null
                && MAC.equals(ep.macAddress().toLowerCase(Locale.ROOT));
    }

    /**
     * Deletes every scratch load balancer, then every scratch remote endpoint of {@code networkId}. Only objects
     * {@code owned} does not claim are read (one document each). For {@code check --probe-hns}, which may read the
     * host whole.
     *
     * @return the IDs deleted; IDs that could not be deleted are logged and left (the next sweep retries)
     */
    public static List<String> sweep(HnsClient hns, String networkId, Ownership owned) {
        return sweep(hns, networkId, owned, true);
    }

    /**
     * As {@link #sweep(HnsClient, String, Ownership)} for the agent's start: it reads no endpoint it cannot suspect.
     * Unowned load balancers are read (the agent's own observe reads them too); the endpoints a scratch load balancer
     * references are read and deleted with it; of the other endpoints only unowned ones carrying winproxy's mark
     * (scratch endpoints under the GUID the probe chose) are read, never the CNI's pods or the remote endpoints the
     * journal owns: at 10,000 Services that is 100,000 documents a start would otherwise read. A scratch endpoint
     * left alone under an HNS-chosen ID (a probe killed between its two creates, on a host that ignores chosen IDs) is
     * swept by the next {@code check --probe-hns}.
     */
    public static List<String> sweepAtStart(HnsClient hns, String networkId, Ownership owned) {
        return sweep(hns, networkId, owned, false);
    }

    private static List<String> sweep(HnsClient hns, String networkId, Ownership owned, boolean thorough) {
        List<String> deleted = new ArrayList<>();
        List<String> referenced = new ArrayList<>();
        for (String id : hns.listLoadBalancerIds()) {
            if (!owned.ownsLoadBalancer(id)) {
                hns.getLoadBalancer(id).filter(ScratchObjects::isScratch).ifPresent(lb -> {
                    referenced.addAll(lb.hostComputeEndpoints());
                    delete(() -> hns.deleteLoadBalancer(lb.id()), lb.id(), deleted);
                });
            }
        }
        for (String id : hns.listEndpointIds(networkId)) {
            boolean suspect = thorough || HnsIds.isWinproxys(id)
                    || referenced.stream().anyMatch(r -> r.equalsIgnoreCase(id));
            if (suspect && !owned.ownsRemoteEndpoint(id)) {
                hns.getEndpoint(id).filter(ScratchObjects::isScratch)
                        .ifPresent(ep -> delete(() -> hns.deleteEndpoint(ep.id()), ep.id(), deleted));
            }
        }
        if (!deleted.isEmpty()) {
            logger.atInfo().setMessage("Deleted scratch objects a probe left behind").addKeyValue("ids", deleted)
                    .log();
        }
        return deleted;
    }

    private static void delete(Runnable call, String id, List<String> deleted) {
        try {
            call.run();
            deleted.add(id);
        } catch (HnsException e) {
            if (e.isNotFound()) {
                return;
            }
            logger.atWarn().setMessage("Cannot delete a scratch object of winproxy check --probe-hns")
                    .addKeyValue("id", id).addKeyValue("err", HnsErrorText.of(e)).log();
        }
    }
}
