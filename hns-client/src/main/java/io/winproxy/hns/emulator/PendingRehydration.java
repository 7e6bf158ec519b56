package io.winproxy.hns.emulator;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What an emulated HNS restart dropped and keeps for rehydration (real HNS restores the policies it persisted after
 * its service restarts, with their old IDs): the remote endpoints and load balancers, and when they come back
 * ({@code dueAt} in epoch milliseconds; 0: only on {@link HnsEmulator#rehydrate()}).
 */
public record PendingRehydration(@JsonProperty("Endpoints") List<HostComputeEndpoint> endpoints,
                                 @JsonProperty("LoadBalancers") List<HostComputeLoadBalancer> loadBalancers,
                                 @JsonProperty("DueAt") long dueAt) {
    public PendingRehydration {
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
        loadBalancers = loadBalancers == null ? List.of() : List.copyOf(loadBalancers);
    }

    /** Whether it is due at {@code now} (never for one that waits for a command). */
    public boolean dueAt(Instant now) {
        return dueAt > 0 && now.toEpochMilli() >= dueAt;
    }

    /** This and {@code later} together (a second restart before the first rehydration), due at the later's time. */
    PendingRehydration plus(PendingRehydration later) {
        List<HostComputeEndpoint> eps = new ArrayList<>(endpoints);
        eps.addAll(later.endpoints());
        List<HostComputeLoadBalancer> lbs = new ArrayList<>(loadBalancers);
        lbs.addAll(later.loadBalancers());
        return new PendingRehydration(eps, lbs, later.dueAt());
    }
}
