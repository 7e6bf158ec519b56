package io.winproxy.agent.sync;

import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.model.IpFamily;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The result of applying pending changes and computing the desired state for one sync.
 *
 * <p>The per-family components are what health and metrics report: {@code families} is the IP family set the
 * agent runs this sync (IPv4 only, or IPv4 and IPv6 on a dual-stack node, as upstream's two single-stack proxiers),
 * and every family in it has an entry in {@code noLocalByFamily} and {@code triggerTimesByFamily}. The unlabelled
 * totals ({@code triggerTimes}, {@code noLocalInternal}, {@code noLocalExternal}) count every service port once.
 *
 * @param healthCheckNodePorts "ns/name" -> healthCheckNodePort of services with externalTrafficPolicy Local
 * @param localReadyEndpoints  "ns/name" -> number of ready endpoints on this node
 * @param triggerTimes         the EndpointSlice change trigger times applied by this sync (for the
 *                             network-programming latency metric)
 * @param noLocalInternal      service ports with internalTrafficPolicy Local and no local endpoint
 * @param noLocalExternal      externally reachable ports with externalTrafficPolicy Local and no local endpoint
 * @param families             the IP families this sync reports, in order (IPv4 first); never empty
 * @param noLocalByFamily      per family in {@code families}: its service ports' no-local-endpoint counts
 * @param triggerTimesByFamily per family in {@code families}: the trigger times of the changed services of that
 *                             family
 */
public record PolicySnapshot(DesiredState desired, Map<String, Integer> healthCheckNodePorts,
                             Map<String, Integer> localReadyEndpoints, List<Instant> triggerTimes,
                             int noLocalInternal, int noLocalExternal, List<IpFamily> families,
                             Map<IpFamily, NoLocalEndpoints> noLocalByFamily,
                             Map<IpFamily, List<Instant>> triggerTimesByFamily) {

    /** Service ports of one family with a Local traffic policy and no local endpoint. */
    public record NoLocalEndpoints(int internal, int external) {
        public static final NoLocalEndpoints NONE = new NoLocalEndpoints(0, 0);
    }

    public PolicySnapshot {
        healthCheckNodePorts = Map.copyOf(healthCheckNodePorts);
        localReadyEndpoints = Map.copyOf(localReadyEndpoints);
        triggerTimes = List.copyOf(triggerTimes);
        if (families == null || families.isEmpty()) {
            throw new IllegalArgumentException("families must not be empty");
        }
        families = List.copyOf(families);
        EnumMap<IpFamily, NoLocalEndpoints> noLocal = new EnumMap<>(IpFamily.class);
        EnumMap<IpFamily, List<Instant>> triggers = new EnumMap<>(IpFamily.class);
        for (IpFamily family : families) {
            noLocal.put(family, noLocalByFamily.getOrDefault(family, NoLocalEndpoints.NONE));
            triggers.put(family, List.copyOf(triggerTimesByFamily.getOrDefault(family, List.of())));
        }
        noLocalByFamily = Collections.unmodifiableMap(noLocal);
        triggerTimesByFamily = Collections.unmodifiableMap(triggers);
    }

    /** A single-stack (IPv4) snapshot: every count and trigger time is reported under IPv4. */
    public PolicySnapshot(DesiredState desired, Map<String, Integer> healthCheckNodePorts,
                          Map<String, Integer> localReadyEndpoints, List<Instant> triggerTimes,
                          int noLocalInternal, int noLocalExternal) {
        this(desired, healthCheckNodePorts, localReadyEndpoints, triggerTimes, noLocalInternal, noLocalExternal,
                List.of(IpFamily.IPV4), Map.of(IpFamily.IPV4, new NoLocalEndpoints(noLocalInternal, noLocalExternal)),
                Map.of(IpFamily.IPV4, triggerTimes));
    }

    /** True when this sync runs both IP families. */
    public boolean dualStack() {
        return families.size() > 1;
    }
}
