package io.winproxy.hns.emulator;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import java.util.Set;

/**
 * One mutation of the emulated host as the state file's change log records it: the whole new document of a put, the
 * ID of a remove, the new HNS version, faults, rehydration or variants. Replaying changes is idempotent (each one sets an absolute value).
 */
record StoreChange(@JsonProperty("Op") Op op,
                   @JsonProperty("ID") String id,
                   @JsonProperty("Network") HostComputeNetwork network,
                   @JsonProperty("Endpoint") HostComputeEndpoint endpoint,
                   @JsonProperty("LoadBalancer") HostComputeLoadBalancer loadBalancer,
                   @JsonProperty("HnsVersion") String hnsVersion,
                   @JsonProperty("Faults") FaultSettings faults,
                   @JsonProperty("Rehydration") PendingRehydration rehydration,
                   @JsonProperty("Variants") Set<HnsVariant> variants) {

    /** The kinds of change. */
    enum Op {
        @JsonProperty("PutNetwork") PUT_NETWORK,
        @JsonProperty("PutEndpoint") PUT_ENDPOINT,
        @JsonProperty("PutLoadBalancer") PUT_LOAD_BALANCER,
        @JsonProperty("RemoveNetwork") REMOVE_NETWORK,
        @JsonProperty("RemoveEndpoint") REMOVE_ENDPOINT,
        @JsonProperty("RemoveLoadBalancer") REMOVE_LOAD_BALANCER,
        @JsonProperty("SetVersion") SET_VERSION,
        /** New fault settings ({@code Faults} absent: none). */
        @JsonProperty("SetFaults") SET_FAULTS,
        /** What a restart keeps for rehydration ({@code Rehydration} absent: nothing pending). */
        @JsonProperty("SetRehydration") SET_REHYDRATION,
        /** The HNS variants switched on ({@code Variants} absent: none). */
        @JsonProperty("SetVariants") SET_VARIANTS
    }

    static StoreChange put(HostComputeNetwork n) {
        return new StoreChange(Op.PUT_NETWORK, null, n, null, null, null, null, null, null);
    }

    static StoreChange put(HostComputeEndpoint e) {
        return new StoreChange(Op.PUT_ENDPOINT, null, null, e, null, null, null, null, null);
    }

    static StoreChange put(HostComputeLoadBalancer lb) {
        return new StoreChange(Op.PUT_LOAD_BALANCER, null, null, null, lb, null, null, null, null);
    }

    static StoreChange remove(Op op, String id) {
        return new StoreChange(op, id, null, null, null, null, null, null, null);
    }

    static StoreChange faults(FaultSettings f) {
        return new StoreChange(Op.SET_FAULTS, null, null, null, null, null, f, null, null);
    }

    static StoreChange rehydration(PendingRehydration r) {
        return new StoreChange(Op.SET_REHYDRATION, null, null, null, null, null, null, r, null);
    }

    static StoreChange variants(Set<HnsVariant> v) {
        return new StoreChange(Op.SET_VARIANTS, null, null, null, null, null, null, null, v.isEmpty() ? null : v);
    }

    static StoreChange version(String v) {
        return new StoreChange(Op.SET_VERSION, null, null, null, null, v, null, null, null);
    }
}
