package io.winproxy.policy.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ObservedStateTest {
    private static final ObservedEndpoint LOCAL = ObservedEndpoint.local("l1", "10.244.1.5", "fd00::5");
    private static final ObservedEndpoint STALE = ObservedEndpoint.remote("r0", "fd00::5", "192.168.1.99");
    private static final ObservedEndpoint REMOTE = ObservedEndpoint.remote("r1", "10.244.2.6", "192.168.1.12");
    private static final ObservedEndpoint OTHER = ObservedEndpoint.remote("r2", "10.244.2.7", "192.168.1.12");
    private static final ObservedLoadBalancer LB = ObservedLoadBalancer.journaled("lb1",
            new LoadBalancerKey(IpFamily.IPV4, "10.96.0.10", Protocol.TCP, 80), "fp");

    @Test
    void aStateMadeFromListsLooksUpByWalkingThemInTheirOrder() {
        ObservedState state = new ObservedState(List.of(STALE, LOCAL, REMOTE, OTHER), List.of(LB));

        assertThat(state.lookup().endpointsHolding(Set.of("fd00::5", "10.244.2.7")))
                .containsExactly(STALE, LOCAL, OTHER);
        assertThat(state.lookup().endpointsHolding(Set.of("10.244.1.5", "fd00::5"))).as("each once")
                .containsExactly(STALE, LOCAL);
        assertThat(state.lookup().endpointsHolding(Set.of())).isEmpty();
        assertThat(state.lookup().endpointsHolding(Set.of("10.0.0.1"))).isEmpty();
        assertThat(state.lookup().loadBalancersRead()).as("every one, since none is known to be journaled")
                .containsExactly(LB);
    }

    @Test
    void twoStatesWithTheSameListsAreEqualWhateverTheirLookups() {
        ObservedState walked = new ObservedState(List.of(LOCAL, REMOTE), List.of(LB));
        ObservedState looked = new ObservedState(List.of(LOCAL, REMOTE), List.of(LB), walked.lookup());

        assertThat(looked).isEqualTo(walked).hasSameHashCodeAs(walked);
        assertThat(looked.lookup()).isSameAs(walked.lookup());
        assertThat(new ObservedState(List.of(LOCAL), List.of(LB))).isNotEqualTo(walked);
    }
}
