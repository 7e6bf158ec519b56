package io.winproxy.hns.emulator;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import java.util.List;
import java.util.Set;

/**
 * The state file's content: the emulated HNS version and every object as v2 HCN documents, in creation order, plus
 * the fault settings, what an HNS restart keeps for rehydration and the {@link HnsVariant}s switched on (each absent
 * when there are none).
 * {@code hnsVersion} is {@code "MAJOR.MINOR"}.
 */
public record EmulatorStateDocument(@JsonProperty("HnsVersion") String hnsVersion,
                                    @JsonProperty("Networks") List<HostComputeNetwork> networks,
                                    @JsonProperty("Endpoints") List<HostComputeEndpoint> endpoints,
                                    @JsonProperty("LoadBalancers") List<HostComputeLoadBalancer> loadBalancers,
                                    @JsonProperty("Faults") FaultSettings faults,
                                    @JsonProperty("PendingRehydration") PendingRehydration pendingRehydration,
                                    @JsonProperty("Variants") Set<HnsVariant> variants) {
    public EmulatorStateDocument(String hnsVersion, List<HostComputeNetwork> networks,
                                 List<HostComputeEndpoint> endpoints, List<HostComputeLoadBalancer> loadBalancers) {
        this(hnsVersion, networks, endpoints, loadBalancers, null, null, null);
    }

    public EmulatorStateDocument {
        networks = networks == null ? List.of() : List.copyOf(networks);
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
        loadBalancers = loadBalancers == null ? List.of() : List.copyOf(loadBalancers);
    }
}
