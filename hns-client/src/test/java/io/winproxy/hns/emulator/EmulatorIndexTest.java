package io.winproxy.hns.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.NetworkSession;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store's indexes answer every rule the way the former scans did, stay right through puts, modifies, removes,
 * restarts and loads, and keep per-call cost flat as the host grows.
 */
class EmulatorIndexTest {
    private final EmulatorFixture f = EmulatorFixture.create();

    @Test
    void aModifiedLoadBalancerFreesItsOldFrontendAndTakesTheNewOne() {
        f.hns.setVersion(new HnsVersion(15, 5));
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()));

        f.hns.modifyLoadBalancer(lb.id(), EmulatorFixture.clusterIp("10.96.0.1", 81, 0, f.pod1.id()));

        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()));
        assertHresult(() -> f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 81, 0, f.pod2.id())),
                HResults.HCN_E_PORT_ALREADY_EXISTS);
        // A modify may keep its own frontend.
        f.hns.modifyLoadBalancer(lb.id(), EmulatorFixture.clusterIp("10.96.0.1", 81, 0, f.pod2.id()));
    }

    @Test
    void vipsCollideAsAddressesWhateverTheirSpelling() {
        f.hns.createLoadBalancer(HostComputeLoadBalancer.of(List.of(f.pod1.id()), "", "fd00::a",
                new LoadBalancerPortMapping(6, 8080, 80, 0, 0), HostComputeLoadBalancer.FLAG_IPV6));

        assertHresult(() -> f.hns.createLoadBalancer(HostComputeLoadBalancer.of(List.of(f.pod1.id()), "",
                "FD00:0:0:0:0:0:0:A", new LoadBalancerPortMapping(6, 8080, 80, 0, 0),
                HostComputeLoadBalancer.FLAG_IPV6)), HResults.HCN_E_PORT_ALREADY_EXISTS);
    }

    @Test
    void vipLessLoadBalancersOfTheTwoFamiliesShareAPortButNotWithinAFamily() {
        f.hns.createLoadBalancer(EmulatorFixture.nodePort(30080, f.pod1.id()));
        f.hns.createLoadBalancer(HostComputeLoadBalancer.of(List.of(f.pod1.id()), "", null,
                new LoadBalancerPortMapping(6, 8080, 30080, 0, 0), HostComputeLoadBalancer.FLAG_IPV6));
        // A VIP on the same port does not collide with the VIP-less ones.
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 30080, 0, f.pod1.id()));

        assertHresult(() -> f.hns.createLoadBalancer(EmulatorFixture.nodePort(30080, f.pod2.id())),
                HResults.HCN_E_PORT_ALREADY_EXISTS);
        assertThat(f.hns.listLoadBalancerIds()).hasSize(3);
    }

    @Test
    void anEndpointIsReferencedUntilItsLastLoadBalancerLetsGoOfIt() {
        f.hns.setVersion(new HnsVersion(15, 5));
        HostComputeLoadBalancer a = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.remote.id(), f.remote.id()));
        HostComputeLoadBalancer b = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.2", 80, 0,
                f.remote.id()));

        f.hns.deleteLoadBalancer(a.id());
        assertHresult(() -> f.hns.deleteEndpoint(f.remote.id()), HResults.HCN_E_ENTITY_HAS_REFERENCES);
        f.hns.modifyLoadBalancer(b.id(), EmulatorFixture.clusterIp("10.96.0.2", 80, 0, f.pod1.id()));
        f.hns.deleteEndpoint(f.remote.id());

        assertThat(f.hns.getEndpoint(f.remote.id())).isEmpty();
        assertHresult(() -> f.hns.deleteEndpoint(f.pod1.id()), HResults.HCN_E_ENTITY_HAS_REFERENCES);
    }

    @Test
    void aRestartClearsTheIndexesOfWhatItDropped() {
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod2.id(), f.remote.id()));

        f.hns.restartHns();

        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()));
        f.hns.deleteEndpoint(f.pod2.id());
        assertThat(f.hns.listEndpointIds(f.network.id())).containsExactly(f.pod1.id());
    }

    @Test
    void ipamHandsOutTheLowestFreeAddressAndReusesFreedOnes() {
        HnsEmulator hns = HnsEmulator.builder().seed(5).echo(EchoProfile.VERBATIM).build();
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, null, "node-a");
        HostComputeNetwork net = host.syncNetwork(List.of(new EmulatedHost.Node("node-a", "10.1.0.0/29",
                "192.168.0.1")));
        host.ensureLocalEndpoint("10.1.0.3");
        host.ensureLocalEndpoint("10.1.0.3"); // the same pod: no second endpoint
        List<String> allocated = new ArrayList<>();
        List<HostComputeEndpoint> created = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            HostComputeEndpoint ep = hns.createEndpoint(net.id(), new HostComputeEndpoint(null, "x" + i, null, null,
                    null, null, 0, null));
            created.add(ep);
            allocated.add(ep.ipAddress().orElseThrow());
        }
        assertThat(allocated).containsExactly("10.1.0.2", "10.1.0.4", "10.1.0.5", "10.1.0.6");
        assertHresult(() -> hns.createEndpoint(net.id(), new HostComputeEndpoint(null, "full", null, null, null,
                null, 0, null)), HResults.HCN_E_ADDR_INVALID_OR_RESERVED);

        hns.deleteEndpoint(created.get(2).id());
        host.removeLocalEndpoint("10.1.0.3");

        assertThat(hns.createEndpoint(net.id(), new HostComputeEndpoint(null, "y", null, null, null, null, 0, null))
                .ipAddress()).contains("10.1.0.3");
        assertThat(hns.createEndpoint(net.id(), new HostComputeEndpoint(null, "z", null, null, null, null, 0, null))
                .ipAddress()).contains("10.1.0.5");
    }

    @Test
    void addressRunsMergeAndSplitAndCountDuplicates() {
        AddressSet set = new AddressSet();
        for (long a : new long[] {5, 7, 6, 9, 6}) {
            set.add(a);
        }
        assertThat(set.lowestFreeFrom(5)).isEqualTo(8);
        assertThat(set.lowestFreeFrom(4)).isEqualTo(4);
        assertThat(set.lowestFreeFrom(9)).isEqualTo(10);

        set.remove(6);
        assertThat(set.lowestFreeFrom(5)).isEqualTo(8); // 6 is still used once
        set.remove(6);
        assertThat(set.lowestFreeFrom(5)).isEqualTo(6);
        set.add(8);
        set.add(6);
        assertThat(set.lowestFreeFrom(5)).isEqualTo(10);
        set.remove(7);
        assertThat(set.lowestFreeFrom(5)).isEqualTo(7);
        assertThat(set.lowestFreeFrom(8)).isEqualTo(10);
        assertThat(set.contains(9)).isTrue();
        assertThat(set.contains(7)).isFalse();
    }

    @Test
    void theIndexesAreRebuiltFromAStateFile(@TempDir Path dir) {
        Path file = dir.resolve("hns.json");
        EmulatorFixture g = new EmulatorFixture(HnsEmulator.builder().stateFile(file).echo(EchoProfile.VERBATIM)
                .build());
        g.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, g.remote.id()));

        HnsEmulator other = HnsEmulator.openExisting(file);

        assertHresult(() -> other.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, g.pod1.id())),
                HResults.HCN_E_PORT_ALREADY_EXISTS);
        assertHresult(() -> other.deleteEndpoint(g.remote.id()), HResults.HCN_E_ENTITY_HAS_REFERENCES);
        assertThat(other.listEndpointIds(g.network.id())).hasSize(3);
    }

    /**
     * The scale the agent is measured at is 10,000 Services and about 110,000 HNS objects; each call must cost the
     * same at that size as on an empty host. Asserts correctness at a moderate size and prints the timing (set
     * {@code -Dwinproxy.emulator.scale=100000} for the full size).
     */
    @Test
    void aHostOfManyThousandsOfObjectsIsBuiltAndCheckedCallByCall() {
        int endpoints = Integer.getInteger("winproxy.emulator.scale", 20_000);
        int loadBalancers = endpoints / 10;
        HnsEmulator hns = HnsEmulator.builder().seed(9).build();
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, null, "node-a");
        HostComputeNetwork net = host.syncNetwork(EmulatorFixture.NODES);
        HostComputeEndpoint local = host.ensureLocalEndpoint("10.244.1.5");

        long start = System.nanoTime();
        List<String> ids = new ArrayList<>(endpoints);
        try (NetworkSession session = hns.openNetwork(net.id())) {
            for (int i = 0; i < endpoints; i++) {
                String ip = "10." + (100 + i / 65536) + "." + (i / 256 % 256) + "." + (i % 256);
                ids.add(session.createEndpoint(HostComputeEndpoint.remote(net.id(), ip, null, "192.168.10.22"))
                        .id());
            }
        }
        long endpointsDone = System.nanoTime();
        List<String> lbIds = new ArrayList<>(loadBalancers);
        for (int i = 0; i < loadBalancers; i++) {
            String vip = "10.96." + (i / 256) + "." + (i % 256);
            lbIds.add(hns.createLoadBalancer(EmulatorFixture.clusterIp(vip, 80, 0, ids.get(i * 10),
                    ids.get(i * 10 + 1), local.id())).id());
        }
        long loadBalancersDone = System.nanoTime();
        System.out.printf("emulator scale: %d endpoint creates in %d ms, %d load balancer creates in %d ms%n",
                endpoints, (endpointsDone - start) / 1_000_000, loadBalancers,
                (loadBalancersDone - endpointsDone) / 1_000_000);

        assertThat(hns.listEndpointIds(net.id())).hasSize(endpoints + 1);
        assertThat(hns.listLoadBalancerIds()).hasSize(loadBalancers).doesNotHaveDuplicates();
        assertThat(Set.copyOf(ids)).hasSize(endpoints);
        assertHresult(() -> hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.7", 80, 0, ids.get(5))),
                HResults.HCN_E_PORT_ALREADY_EXISTS);
        assertHresult(() -> hns.deleteEndpoint(ids.get(71)), HResults.HCN_E_ENTITY_HAS_REFERENCES);
        hns.deleteEndpoint(ids.get(ids.size() - 1));
        hns.deleteLoadBalancer(lbIds.get(0));
        hns.deleteEndpoint(ids.get(0));
        assertThat(hns.getEndpoint(ids.get(1))).isPresent();
        host.removeLocalEndpoint("10.244.1.5");
        assertThat(hns.getLoadBalancer(lbIds.get(1)).orElseThrow().hostComputeEndpoints()).hasSize(2);
        hns.journal().reset();
        hns.getLoadBalancer(lbIds.get(loadBalancers - 1));
        assertThat(hns.journal().total()).isEqualTo(3);
    }

    private static void assertHresult(ThrowingCallable call, int hresult) {
        assertThatThrownBy(call).isInstanceOfSatisfying(HnsException.class,
                e -> assertThat(HResults.describe(e.hresult())).isEqualTo(HResults.describe(hresult)));
    }
}
