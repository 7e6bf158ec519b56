package io.winproxy.hns.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import org.junit.jupiter.api.Test;

/** The journal counts native-level calls exactly as the real binding makes them. */
class CallJournalTest {
    private final EmulatorFixture f = EmulatorFixture.create();
    private final CallJournal journal = f.hns.journal();

    @Test
    void listingLoadBalancersIsOneEnumeratePlusOpenQueryCloseForEach() {
        createThreeLoadBalancers();
        journal.reset();

        assertThat(f.hns.listLoadBalancers()).hasSize(3);

        assertThat(journal.count(HnsCall.ENUMERATE, HnsObjectKind.LOAD_BALANCER)).isEqualTo(1);
        assertThat(journal.count(HnsCall.OPEN, HnsObjectKind.LOAD_BALANCER)).isEqualTo(3);
        assertThat(journal.count(HnsCall.QUERY, HnsObjectKind.LOAD_BALANCER)).isEqualTo(3);
        assertThat(journal.count(HnsCall.CLOSE, HnsObjectKind.LOAD_BALANCER)).isEqualTo(3);
        assertThat(journal.total()).isEqualTo(10);
        assertThat(journal.writes()).isZero();
    }

    @Test
    void listingLoadBalancerIdsIsOneEnumerate() {
        createThreeLoadBalancers();
        journal.reset();

        assertThat(f.hns.listLoadBalancerIds()).hasSize(3);

        assertThat(journal.snapshot()).containsExactly(java.util.Map.entry("HcnEnumerateLoadBalancers", 1));
    }

    @Test
    void creatingALoadBalancerIsCreateQueryClose() {
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()));

        assertThat(journal.snapshot()).containsExactly(
                java.util.Map.entry("HcnQueryLoadBalancerProperties", 1),
                java.util.Map.entry("HcnCloseLoadBalancer", 1),
                java.util.Map.entry("HcnCreateLoadBalancer", 1));
        assertThat(journal.writes()).isEqualTo(1);
        assertThat(journal.writes(HnsObjectKind.LOAD_BALANCER)).isEqualTo(1);
    }

    @Test
    void creatingAnEndpointOpensAndClosesItsNetwork() {
        f.hns.createEndpoint(f.network.id(), HostComputeEndpoint.remote(f.network.id(), "10.244.3.9", null,
                "192.168.10.23"));

        assertThat(journal.count(HnsCall.OPEN, HnsObjectKind.NETWORK)).isEqualTo(1);
        assertThat(journal.count(HnsCall.CLOSE, HnsObjectKind.NETWORK)).isEqualTo(1);
        assertThat(journal.count(HnsCall.CREATE, HnsObjectKind.ENDPOINT)).isEqualTo(1);
        assertThat(journal.count(HnsCall.QUERY, HnsObjectKind.ENDPOINT)).isEqualTo(1);
        assertThat(journal.count(HnsCall.CLOSE, HnsObjectKind.ENDPOINT)).isEqualTo(1);
        assertThat(journal.total()).isEqualTo(5);
    }

    @Test
    void getByIdIsADirectOpenQueryCloseWithoutEnumerate() {
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()));
        createThreeLoadBalancers();
        journal.reset();

        assertThat(f.hns.getLoadBalancer(lb.id())).isPresent();
        assertThat(f.hns.getEndpoint(f.remote.id())).isPresent();

        assertThat(journal.snapshot()).containsExactly(
                java.util.Map.entry("HcnOpenEndpoint", 1),
                java.util.Map.entry("HcnQueryEndpointProperties", 1),
                java.util.Map.entry("HcnCloseEndpoint", 1),
                java.util.Map.entry("HcnOpenLoadBalancer", 1),
                java.util.Map.entry("HcnQueryLoadBalancerProperties", 1),
                java.util.Map.entry("HcnCloseLoadBalancer", 1));
        assertThat(journal.failures()).isZero();
    }

    @Test
    void getOfAnUnknownIdIsOneFailedOpenAndNothingElse() {
        assertThat(f.hns.getLoadBalancer("00000000-0000-4000-8000-000000000000")).isEmpty();
        assertThat(f.hns.getEndpoint("00000000-0000-4000-8000-000000000001")).isEmpty();

        assertThat(journal.snapshot()).containsExactly(
                java.util.Map.entry("HcnOpenEndpoint", 1),
                java.util.Map.entry("HcnOpenLoadBalancer", 1));
        assertThat(journal.failures()).isEqualTo(2);
        assertThat(journal.failuresByHresult()).containsExactly(
                java.util.Map.entry(io.winproxy.hns.HResults.ERROR_NOT_FOUND, 2));
    }

    @Test
    void listingEndpointsOfANetworkCountsOnlyThatNetworksEndpoints() {
        assertThat(f.hns.listEndpoints(f.network.id())).hasSize(3);

        assertThat(journal.count(HnsCall.ENUMERATE, HnsObjectKind.ENDPOINT)).isEqualTo(1);
        assertThat(journal.count(HnsCall.QUERY, HnsObjectKind.ENDPOINT)).isEqualTo(3);
    }

    @Test
    void modifyAndDeleteAreWritesAndFailedCallsAreCountedAsFailures() {
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()));
        f.hns.modifyLoadBalancer(lb.id(), EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod2.id()));
        f.hns.deleteLoadBalancer(lb.id());
        try {
            f.hns.deleteLoadBalancer(lb.id());
        } catch (io.winproxy.hns.HnsException expected) {
            // counted below
        }

        assertThat(journal.count(HnsCall.MODIFY)).isEqualTo(1);
        assertThat(journal.count(HnsCall.DELETE)).isEqualTo(2);
        assertThat(journal.writes()).isEqualTo(4);
        assertThat(journal.failures()).isEqualTo(1);
        assertThat(journal.failuresByHresult()).containsKey(io.winproxy.hns.HResults.ERROR_NOT_FOUND);
    }

    @Test
    void resetForgetsEverythingAndCniActionsAreNotJournaled() {
        createThreeLoadBalancers();
        journal.reset();

        f.host.ensureLocalEndpoint("10.244.1.40");
        f.host.syncNetwork(EmulatorFixture.NODES);

        assertThat(journal.total()).isZero();
        assertThat(journal.failures()).isZero();
    }

    private void createThreeLoadBalancers() {
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.10", 53, 0, f.pod1.id(), f.remote.id()));
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.11", 80, 0, f.pod2.id()));
        f.hns.createLoadBalancer(EmulatorFixture.nodePort(30080, f.pod1.id()));
    }
}
