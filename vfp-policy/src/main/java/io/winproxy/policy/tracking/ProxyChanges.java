package io.winproxy.policy.tracking;

import io.winproxy.policy.desired.PolicyWarning;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one {@link ProxyState#applyChanges} changed.
 *
 * @param changedServices        "ns/name" of every Service whose ports or endpoints changed
 * @param deletedUdpClusterIps   cluster IPs of UDP service ports that went away (for conntrack-style cleanup)
 * @param healthCheckNodePorts   "ns/name" -> healthCheckNodePort after the change (all Services, not only changed)
 * @param localReadyEndpoints    "ns/name" -> local ready endpoint count after the change (all Services)
 * @param lastChangeTriggerTimes "ns/name" -> the trigger times of the applied slice changes (latency metric)
 * @param newWarnings            the current warnings of the changed Services and their slices (emit as events)
 */
public record ProxyChanges(Set<String> changedServices, Set<String> deletedUdpClusterIps,
                           Map<String, Integer> healthCheckNodePorts, Map<String, Integer> localReadyEndpoints,
                           Map<String, List<Instant>> lastChangeTriggerTimes, List<PolicyWarning> newWarnings) {
    public ProxyChanges {
        changedServices = Set.copyOf(changedServices);
        deletedUdpClusterIps = Set.copyOf(deletedUdpClusterIps);
        healthCheckNodePorts = Map.copyOf(healthCheckNodePorts);
        localReadyEndpoints = Map.copyOf(localReadyEndpoints);
        lastChangeTriggerTimes = Map.copyOf(lastChangeTriggerTimes);
        newWarnings = List.copyOf(newWarnings);
    }

    /** True when nothing changed. */
    public boolean isEmpty() {
        return changedServices.isEmpty();
    }
}
