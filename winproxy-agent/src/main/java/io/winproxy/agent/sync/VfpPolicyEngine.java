package io.winproxy.agent.sync;

import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.model.ServicePortName;
import io.winproxy.policy.plan.IncrementalPlanner;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Ownership;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanCalculator;
import io.winproxy.policy.tracking.EndpointsChangeTracker;
import io.winproxy.policy.tracking.ProxyChanges;
import io.winproxy.policy.tracking.ProxyState;
import io.winproxy.policy.tracking.ServiceChangeTracker;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * {@link PolicyEngine} over vfp-policy: kube-proxy's change trackers (fed from informer threads), one
 * {@link ProxyState} and {@link PolicyCalculator} owned by the sync thread, and the {@link PlanCalculator}.
 *
 * <p>IP families (winkernel-semantics.md §1.3): each {@link #compute} decides the family set health and metrics
 * report. The node is dual-stack when HNS supports IPv6 dual-stack, the network is not overlay and the node has an
 * IPv6 address ({@link NodeNetwork#nodeIp(IpFamily)}: the Node's InternalIPs or {@code --bind-address}); the set is
 * then IPv4 and IPv6, else IPv4 alone. It is decided per sync because the Node (and its addresses) may arrive or
 * change after start-up.
 */
public final class VfpPolicyEngine implements PolicyEngine {
    private final ServiceChangeTracker serviceChanges = new ServiceChangeTracker();
    private final EndpointsChangeTracker endpointChanges;
    private final ProxyState state = new ProxyState();
    private final PolicyCalculator calculator;
    private final NodeNetworkFactory nodeNetworks;
    private final AgentMetrics metrics;
    private final boolean ipv6DualStackSupported;
    private volatile NodeInfo node;
    private NodeNetwork lastNodeNetwork;
    /** No-local-endpoint counts, indexed as the bits of {@link #noLocalBits}, kept across syncs. */
    private final int[] noLocalCounts = new int[2 + 2 * IpFamily.values().length];
    /** The non-zero {@link #noLocalBits} of each service port, as counted in {@link #noLocalCounts}. */
    private final Map<ServicePortName, Integer> noLocalByPort = new HashMap<>();
    private List<IpFamily> countedFamilies = List.of();
    private long countedGeneration = -1;

    /** Plans the syncs of this engine in proportion to what changed (see {@link IncrementalPlanner}). */
    private final IncrementalPlanner planner = new IncrementalPlanner();
    private HostView lastHost;
    private NodeInfo lastHostNode;

    /** A single-stack engine: health and metrics report IPv4 only (read-only tools, tests). */
    public VfpPolicyEngine(PolicyCalculator calculator, NodeNetworkFactory nodeNetworks, AgentMetrics metrics,
                           Instant startTime) {
        this(calculator, nodeNetworks, metrics, startTime, false);
    }

    /**
     * @param ipv6DualStackSupported HNS's {@code IPv6DualStack} capability (HNS 11.10 or later); false keeps the
     *                               agent single-stack (IPv4) whatever the node's addresses
     */
    public VfpPolicyEngine(PolicyCalculator calculator, NodeNetworkFactory nodeNetworks, AgentMetrics metrics,
                           Instant startTime, boolean ipv6DualStackSupported) {
        this.ipv6DualStackSupported = ipv6DualStackSupported;
        this.calculator = Objects.requireNonNull(calculator);
        this.nodeNetworks = Objects.requireNonNull(nodeNetworks);
        this.metrics = Objects.requireNonNull(metrics);
        this.endpointChanges = new EndpointsChangeTracker(nodeNetworks.nodeName(), startTime);
    }

    @Override
    public boolean onService(ServiceInfo previous, ServiceInfo current) {
        boolean pending = serviceChanges.update(previous, current);
        metrics.serviceChangeReceived();
        metrics.serviceChangesPending(serviceChanges.pendingCount());
        return pending;
    }

    @Override
    public boolean onEndpointSlice(EndpointSliceInfo previous, EndpointSliceInfo current) {
        metrics.endpointChangeReceived();
        return endpointChanges.update(previous, current);
    }

    @Override
    public boolean onNode(NodeInfo current) {
        NodeInfo old = node;
        node = current;
        return !Objects.equals(old, current);
    }

    @Override
    public PolicySnapshot compute(HostView host) {
        ProxyChanges changes = state.applyChanges(serviceChanges, endpointChanges);
        metrics.serviceChangesPending(0);
        metrics.endpointChangesPending(0);
        // The node network (local endpoints, routes, host MAC) is rebuilt only when its inputs changed: the same
        // endpoint list instance (the dataplane keeps it until an endpoint comes or goes), network and Node; and while
        // an overlay host MAC is unknown, every sync looks for the interface again.
        NodeNetwork network;
        if (lastHost != null && lastNodeNetwork != null && !lastNodeNetwork.lacksHostMac()
                && host.endpoints() == lastHost.endpoints()
                && host.network().equals(lastHost.network()) && Objects.equals(node, lastHostNode)) {
            network = lastNodeNetwork;
        } else {
            network = nodeNetworks.build(host, node);
        }
        lastHost = host;
        lastHostNode = node;
        lastNodeNetwork = network;
        DesiredState desired = calculator.calculate(state, network);
        List<IpFamily> families = families(network);
        boolean dualStack = families.size() > 1;
        List<Instant> triggers = new ArrayList<>();
        Map<IpFamily, List<Instant>> triggersByFamily = new EnumMap<>(IpFamily.class);
        changes.lastChangeTriggerTimes().forEach((serviceKey, times) -> {
            triggers.addAll(times);
            for (IpFamily family : dualStack ? familiesOf(serviceKey, families) : List.of(families.get(0))) {
                triggersByFamily.computeIfAbsent(family, f -> new ArrayList<>()).addAll(times);
            }
        });
        countNoLocal(families);
        int[] c = noLocalCounts;
        Map<IpFamily, PolicySnapshot.NoLocalEndpoints> noLocalByFamily = new EnumMap<>(IpFamily.class);
        if (dualStack) {
            for (IpFamily family : families) {
                int i = 2 + 2 * family.ordinal();
                noLocalByFamily.put(family, new PolicySnapshot.NoLocalEndpoints(c[i], c[i + 1]));
            }
        } else {
            noLocalByFamily.put(families.get(0), new PolicySnapshot.NoLocalEndpoints(c[0], c[1]));
        }
        return new PolicySnapshot(desired, changes.healthCheckNodePorts(), changes.localReadyEndpoints(), triggers,
                c[0], c[1], families, noLocalByFamily, triggersByFamily);
    }

    /**
     * Brings the no-local-endpoint counts up to date: only the service ports changed since the last count are
     * re-counted, unless the family set changed or the state's journal no longer reaches back (then all are).
     */
    private void countNoLocal(List<IpFamily> families) {
        Optional<Set<ServicePortName>> changed = families.equals(countedFamilies)
                ? state.changedServicePortsSince(countedGeneration) : Optional.empty();
        if (changed.isEmpty()) {
            noLocalByPort.clear();
            Arrays.fill(noLocalCounts, 0);
        }
        Iterable<ServicePortName> names = changed.isPresent() ? changed.get() : state.services().asMap().keySet();
        for (ServicePortName name : names) {
            int before = noLocalByPort.getOrDefault(name, 0);
            ServicePortInfo service = state.services().asMap().get(name);
            int after = service == null ? 0 : noLocalBits(service, families);
            if (after == before) {
                continue;
            }
            for (int i = 0; i < noLocalCounts.length; i++) {
                noLocalCounts[i] += ((after >> i) & 1) - ((before >> i) & 1);
            }
            if (after == 0) {
                noLocalByPort.remove(name);
            } else {
                noLocalByPort.put(name, after);
            }
        }
        countedFamilies = families;
        countedGeneration = state.generation();
    }

    /**
     * Which no-local counts a service port is in, as bits of {@link #noLocalCounts}: 0 internal and 1 external
     * (every port once), then per family (dual-stack only, as two single-stack proxiers: each family sees only its
     * own ports and endpoints) 2 + 2 * ordinal internal and 3 + 2 * ordinal external.
     */
    private int noLocalBits(ServicePortInfo service, List<IpFamily> families) {
        List<EndpointInfo> endpoints = state.endpoints().get(service.name());
        boolean internal = service.internalPolicyLocal();
        boolean external = service.externalPolicyLocal() && service.externallyAccessible();
        int bits = 0;
        if (endpoints.stream().noneMatch(ep -> ep.local() && ep.ready())) {
            bits |= (internal ? 1 : 0) | (external ? 2 : 0);
        }
        if (families.size() > 1) {
            for (IpFamily family : service.families()) {
                if (!families.contains(family) || endpoints.stream()
                        .anyMatch(ep -> ep.local() && ep.ready() && IpFamily.of(ep.ip()) == family)) {
                    continue;
                }
                int shift = 2 + 2 * family.ordinal();
                bits |= ((internal ? 1 : 0) | (external ? 2 : 0)) << shift;
            }
        }
        return bits;
    }

    /**
     * The IP families of this sync: IPv4 and IPv6 when HNS supports dual-stack, the network is not overlay and the
     * node has an IPv6 address; else IPv4 alone (single-stack winproxy always reported IPv4).
     */
    List<IpFamily> families(NodeNetwork network) {
        if (ipv6DualStackSupported && network.networkType() != NetworkType.OVERLAY
                && !network.nodeIp(IpFamily.IPV6).isEmpty()) {
            return List.of(IpFamily.IPV4, IpFamily.IPV6);
        }
        return List.of(IpFamily.IPV4);
    }

    /**
     * The families among {@code active} of the Service "ns/name" after this sync's changes; a Service that is gone
     * (or serves no active family) counts under the first active family.
     */
    private List<IpFamily> familiesOf(String serviceKey, List<IpFamily> active) {
        Set<IpFamily> result = EnumSet.noneOf(IpFamily.class);
        for (ServicePortInfo service : state.services().ofService(serviceKey)) {
            service.families().stream().filter(active::contains).forEach(result::add);
        }
        return result.isEmpty() ? List.of(active.get(0)) : List.copyOf(result);
    }

    @Override
    public Plan plan(DesiredState desired, ObservedState observed, Ownership ownership, boolean modifySupported) {
        return PlanCalculator.plan(desired, observed, ownership, modifySupported);
    }

    @Override
    public Plan plan(DesiredState desired, ObservedState observed, Ownership ownership, boolean modifySupported,
                     IncrementalPlanner.HostChanges host, boolean full) {
        return planner.plan(desired, observed, ownership, modifySupported, host, full);
    }

    @Override
    public void planApplied(boolean complete) {
        planner.completed(complete);
    }

    /** The node network of the last {@link #compute} (for trace and diagnostics). */
    @Override
    public ProxyState state() {
        return state;
    }

    @Override
    public NodeNetwork lastNodeNetwork() {
        return lastNodeNetwork;
    }
}
