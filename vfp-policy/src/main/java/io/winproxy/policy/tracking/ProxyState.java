package io.winproxy.policy.tracking;

import io.winproxy.policy.desired.PolicyWarning;
import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.model.ServicePortName;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The proxy's view of the cluster: the {@link ServicePortMap} and {@link EndpointsMap}, plus the current input
 * warnings per Service. Owned by the sync thread: {@link #applyChanges} takes everything pending from both trackers
 * and applies it in one step; readers on the same thread never see half a change. Not thread-safe.
 */
public final class ProxyState {
    /** How many changing {@link #applyChanges} calls the journal of changed service ports reaches back. */
    private static final int JOURNAL_LENGTH = 16;

    /** The service ports one {@link #applyChanges} touched. */
    private record Touched(long generation, Set<ServicePortName> ports) {
    }

    private final ServicePortMap services = new ServicePortMap();
    private final EndpointsMap endpoints = new EndpointsMap();
    private final Map<String, List<PolicyWarning>> serviceWarnings = new HashMap<>();
    private final Map<String, List<PolicyWarning>> endpointWarnings = new HashMap<>();
    private List<PolicyWarning> ignoredSliceWarnings = List.of();
    private final ArrayDeque<Touched> journal = new ArrayDeque<>();
    private long generation;
    private long journalStart;

    public ServicePortMap services() {
        return services;
    }

    public EndpointsMap endpoints() {
        return endpoints;
    }

    /** The current warnings about Services and EndpointSlices (bad input that was skipped), stable order. */
    public List<PolicyWarning> warnings() {
        List<PolicyWarning> out = new ArrayList<>();
        new TreeMap<>(serviceWarnings).values().forEach(out::addAll);
        new TreeMap<>(endpointWarnings).values().forEach(out::addAll);
        out.addAll(ignoredSliceWarnings);
        return out;
    }

    /** The number of {@link #applyChanges} calls so far: 0 for the empty state. */
    public long generation() {
        return generation;
    }

    /**
     * The service ports whose {@link ServicePortInfo} or endpoints may differ from those at {@code since} (a value of
     * {@link #generation()}): every port of a changed Service, and every port of a Service whose endpoints changed.
     * Empty when {@code since} is not a generation of this state or is too old for the journal, which holds the last
     * {@value #JOURNAL_LENGTH} calls that changed something; compare every service port then.
     */
    public Optional<Set<ServicePortName>> changedServicePortsSince(long since) {
        if (since < journalStart || since > generation) {
            return Optional.empty();
        }
        Set<ServicePortName> out = new HashSet<>();
        for (Touched touched : journal) {
            if (touched.generation() > since) {
                out.addAll(touched.ports());
            }
        }
        return Optional.of(out);
    }

    /** Applies every pending Service and EndpointSlice change and says what changed. */
    public ProxyChanges applyChanges(ServiceChangeTracker serviceChanges, EndpointsChangeTracker endpointChanges) {
        Set<String> changed = new TreeSet<>();
        Set<ServicePortName> touched = new HashSet<>();
        Set<String> deletedUdp = new TreeSet<>();
        List<PolicyWarning> newWarnings = new ArrayList<>();

        Map<String, ServiceChangeTracker.Change> svcChanges = serviceChanges.checkout();
        for (Map.Entry<String, ServiceChangeTracker.Change> e : new TreeMap<>(svcChanges).entrySet()) {
            String key = e.getKey();
            ServiceChangeTracker.Change change = e.getValue();
            changed.add(key);
            touched.addAll(change.previous().ports().keySet());
            touched.addAll(change.current().ports().keySet());
            for (ServicePortName name : change.previous().ports().keySet()) {
                ServicePortInfo old = services.remove(name);
                if (old != null && old.protocol() == Protocol.UDP
                        && !change.current().ports().containsKey(name)) {
                    deletedUdp.addAll(old.clusterIps().values());
                }
            }
            change.current().ports().values().forEach(services::put);
            if (change.current().warnings().isEmpty()) {
                serviceWarnings.remove(key);
            } else {
                serviceWarnings.put(key, change.current().warnings());
                newWarnings.addAll(change.current().warnings());
            }
        }

        EndpointsChangeTracker.Checkout checkout = endpointChanges.checkout();
        ignoredSliceWarnings = endpointChanges.ignoredSliceWarnings();
        for (Map.Entry<String, EndpointSliceCache.Change> e : new TreeMap<>(checkout.changes()).entrySet()) {
            String key = e.getKey();
            EndpointSliceCache.ServiceEndpoints current = e.getValue().current();
            Map<ServicePortName, List<EndpointInfo>> before = endpoints.ofService(key);
            if (!current.byPort().equals(before)) {
                changed.add(key);
                touched.addAll(before.keySet());
                touched.addAll(current.byPort().keySet());
            }
            endpoints.replaceService(key, current.byPort());
            if (current.warnings().isEmpty()) {
                endpointWarnings.remove(key);
            } else {
                endpointWarnings.put(key, current.warnings());
                newWarnings.addAll(current.warnings());
            }
        }

        generation++;
        if (!touched.isEmpty()) {
            journal.addLast(new Touched(generation, touched));
        }
        while (journal.size() > JOURNAL_LENGTH) {
            journalStart = journal.removeFirst().generation();
        }
        Map<String, List<Instant>> triggerTimes = new HashMap<>();
        checkout.triggerTimes().forEach((k, v) -> triggerTimes.put(k, List.copyOf(v)));
        return new ProxyChanges(changed, deletedUdp, services.healthCheckNodePorts(),
                endpoints.localReadyEndpoints(), triggerTimes, newWarnings);
    }

    /** The endpoints of a service port (shortcut). */
    public List<EndpointInfo> endpointsOf(ServicePortName name) {
        return endpoints.get(name);
    }
}
