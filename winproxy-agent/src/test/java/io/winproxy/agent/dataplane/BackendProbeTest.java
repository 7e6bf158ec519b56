package io.winproxy.agent.dataplane;

import static io.winproxy.agent.dataplane.DataplaneWorld.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When a refused write teaches a backend limit, and how many extra writes learning it may cost. */
class BackendProbeTest {
    @TempDir
    Path stateDir;

    private final List<Integer> sizes = new ArrayList<>();

    private static DesiredLoadBalancer withBackends(int n) {
        return web(IntStream.rangeClosed(1, n).mapToObj(i -> "10.244.2." + i).toList());
    }

    /** A host that refuses more than {@code limit} backends with {@code code}. */
    private Consumer<DesiredLoadBalancer> host(int limit, int code) {
        return lb -> {
            sizes.add(lb.backends().size());
            if (lb.backends().size() > limit) {
                throw new HnsException(code, "HcnCreateLoadBalancer", "");
            }
        };
    }

    @Test
    void theSizesTriedAreTheDocumentedLimitsThenHalvingAtMostThree() {
        assertThat(BackendProbe.candidates(70)).containsExactly(64, 32, 16);
        assertThat(BackendProbe.candidates(3000)).containsExactly(1024, 64, 32);
    }

    @Test
    void aRefusalWhenHnsChoseTheIdIsTheLimitAndIsKept() {
        BackendLimit limit = BackendLimit.of(stateDir, null);
        DesiredLoadBalancer written = new BackendProbe(limit).write(withBackends(70), Set::of, true,
                host(40, HResults.E_INVALIDARG), false);

        assertThat(written.backends()).hasSize(32);
        assertThat(sizes).containsExactly(70, 64, 32);
        assertThat(limit.value()).isEqualTo(32);
        assertThat(HnsCapabilityFile.read(stateDir).orElseThrow().maxBackendsPerLoadBalancer()).isEqualTo(32);
        assertThat(BackendLimit.of(stateDir, null).value()).as("after a restart").isEqualTo(32);
    }

    @Test
    void aRefusalUnderChosenIdsCountsOnlyWhenTheRetryWithoutAnIdWasRefusedToo() {
        BackendLimit limit = BackendLimit.of(stateDir, null);
        // A plain E_INVALIDARG under chosen IDs may be the ID: IdChoice retries it, the probe does not guess.
        assertThatThrownBy(() -> new BackendProbe(limit).write(withBackends(70), Set::of, true,
                host(64, HResults.E_INVALIDARG), true)).isExactlyInstanceOf(HnsException.class);
        assertThat(sizes).containsExactly(70);
        assertThat(limit.value()).isEqualTo(5000);
    }

    @Test
    void fewBackendsOrAnotherCodeOrNoSmallerSizeAcceptedTeachNothing() {
        BackendLimit limit = BackendLimit.of(stateDir, null);
        BackendProbe probe = new BackendProbe(limit);
        assertThatThrownBy(() -> probe.write(withBackends(64), Set::of, true, host(10, HResults.E_INVALIDARG), false))
                .isInstanceOf(HnsException.class);
        assertThatThrownBy(() -> probe.write(withBackends(70), Set::of, true,
                host(64, HResults.HCN_E_INVALID_POLICY), false)).isInstanceOf(HnsException.class);
        sizes.clear();
        assertThatThrownBy(() -> probe.write(withBackends(70), Set::of, true, host(0, HResults.E_INVALIDARG), false))
                .isInstanceOf(HnsException.class);
        assertThat(sizes).as("three extra writes at most").containsExactly(70, 64, 32, 16);
        assertThat(limit.value()).isEqualTo(5000);
        assertThat(HnsCapabilityFile.read(stateDir)).isEmpty();
    }

    @Test
    void aConfiguredLimitCutsWithoutAnyRefusalThisNodesEndpointsFirst() {
        BackendLimit limit = BackendLimit.of(stateDir, 3);
        DesiredLoadBalancer written = new BackendProbe(limit).write(withBackends(5), () -> Set.of("10.244.2.5"),
                true, host(100, HResults.E_INVALIDARG), true);
        assertThat(written.backends()).containsExactly("10.244.2.1", "10.244.2.2", "10.244.2.5");
        assertThat(limit.source()).contains("--hns-max-backends-per-load-balancer");
    }
}
