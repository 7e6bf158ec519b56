package io.winproxy.agent.sync;

import io.winproxy.policy.desired.DesiredState;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The result of applying pending changes and computing the desired state for one sync.
 *
 * @param healthCheckNodePorts "ns/name" -> healthCheckNodePort of services with externalTrafficPolicy Local
 * @param localReadyEndpoints  "ns/name" -> number of ready endpoints on this node
 * @param triggerTimes         the EndpointSlice change trigger times applied by this sync (for the
 *                             network-programming latency metric)
 * @param noLocalInternal      service ports with internalTrafficPolicy Local and no local endpoint
 * @param noLocalExternal      externally reachable ports with externalTrafficPolicy Local and no local endpoint
 */
public record PolicySnapshot(DesiredState desired, Map<String, Integer> healthCheckNodePorts,
                             Map<String, Integer> localReadyEndpoints, List<Instant> triggerTimes,
                             int noLocalInternal, int noLocalExternal) {
    public PolicySnapshot {
        healthCheckNodePorts = Map.copyOf(healthCheckNodePorts);
        localReadyEndpoints = Map.copyOf(localReadyEndpoints);
        triggerTimes = List.copyOf(triggerTimes);
    }
}
