package io.winproxy.hns.explain;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.EchoProfile;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code hns list} against an emulated overlay host. */
class HnsListingTest {
    private final HnsEmulator hns = HnsEmulator.builder().seed(3).echo(EchoProfile.VERBATIM).build();
    private final EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, null, "node-a");
    private final HostComputeNetwork net = host.syncNetwork(List.of(
            new EmulatedHost.Node("node-a", "10.244.1.0/24", "192.168.10.21"),
            new EmulatedHost.Node("node-b", "10.244.2.0/24", "192.168.10.22")));
    private final HostComputeEndpoint pod = host.ensureLocalEndpoint("10.244.1.5");
    private final HostComputeEndpoint remote = hns.createEndpoint(net.id(),
            HostComputeEndpoint.remote(net.id(), "10.244.2.7", "02-11-0A-F4-02-07", "192.168.10.22"));
    private final HostComputeLoadBalancer dns = hns.createLoadBalancer(HostComputeLoadBalancer.of(
            List.of(pod.id(), remote.id()), "", "10.96.0.10",
            new LoadBalancerPortMapping(17, 53, 53, 0, LoadBalancerPortMapping.FLAG_ILB), 0));
    private final HostComputeLoadBalancer web = hns.createLoadBalancer(HostComputeLoadBalancer.of(
            List.of(remote.id()), "10.244.1.2", null,
            new LoadBalancerPortMapping(6, 8080, 30080, 2, 0), HostComputeLoadBalancer.FLAG_DSR));

    @Test
    void loadBalancersAreShownWithResolvedBackendsFlagsAndTheirServicePort() {
        Map<String, String> owners = Map.of(dns.id(), "kube-system/kube-dns:dns");

        HnsListing listing = HnsListing.collect(hns, owners::get);

        String text = listing.text();
        assertThat(text).contains("HNS 15.4: 1 network(s), 2 endpoint(s), 2 load balancer(s)");
        assertThat(text).containsPattern("10\\.96\\.0\\.10:53/UDP +10\\.244\\.1\\.5:53,10\\.244\\.2\\.7:53 +ILB +"
                + "kube-system/kube-dns:dns +" + dns.id());
        assertThat(text).containsPattern("\\*:30080/TCP +10\\.244\\.2\\.7:8080 +DSR\\|SourceIP +- +" + web.id());
        assertThat(text).containsPattern("10\\.244\\.2\\.7 +remote +192\\.168\\.10\\.22");
        assertThat(text).containsPattern("winproxy-overlay +Overlay +10\\.244\\.1\\.0/24 +192\\.168\\.10\\.21 +1");
    }

    @Test
    void jsonHasNetworksEndpointsAndLoadBalancersWithServiceLabels() {
        JsonNode json = HnsListing.collect(hns, id -> id.equals(dns.id()) ? "kube-system/kube-dns:dns" : null).json();

        assertThat(json.get("hnsVersion").asText()).isEqualTo("15.4");
        assertThat(json.get("networks").get(0).get("remoteSubnets").get(0).get("providerAddress").asText())
                .isEqualTo("192.168.10.22");
        assertThat(json.get("endpoints")).hasSize(2);
        JsonNode first = json.get("loadBalancers").get(0);
        assertThat(first.get("service").asText()).isEqualTo("kube-system/kube-dns:dns");
        assertThat(first.get("backends")).extracting(JsonNode::asText).containsExactly("10.244.1.5", "10.244.2.7");
        JsonNode second = json.get("loadBalancers").get(1);
        assertThat(second.get("service").isNull()).isTrue();
        assertThat(second.get("dsr").asBoolean()).isTrue();
        assertThat(second.get("distributionType").asText()).isEqualTo("SourceIP");
    }

    @Test
    void listingMakesNoWritesAndReadsEachCollectionOnce() {
        hns.journal().reset();

        HnsListing.collect(hns, id -> null);

        assertThat(hns.journal().writes()).isZero();
        assertThat(hns.journal().count(HnsCall.ENUMERATE)).isEqualTo(3);
    }

    @Test
    void anEmptyHostListsNone() {
        String text = HnsListing.collect(HnsEmulator.inMemory(), id -> null).text();

        assertThat(text).contains("NETWORKS\n(none)").contains("LOAD BALANCERS\n(none)");
    }
}
