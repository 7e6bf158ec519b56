package io.winproxy.hns.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.hns.Golden;
import io.winproxy.hns.HResults;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Round trips and decodes of realistic HCN/HNS documents (golden files named after the tests). */
class HcnModelGoldenTest {
    private final ObjectMapper mapper = HcnJson.newMapper();
    private final Golden golden = new Golden();

    /** The golden file {@code file} decoded as {@code type}. */
    private <T> T decode(String file, Class<T> type) throws IOException {
        return mapper.readValue(golden.text(file), type);
    }

    /** Both endpoint golden files describe pod 10.244.2.17 on node 192.168.10.22, as a remote endpoint. */
    private static void assertIsTheRemoteEndpointOfPod17(HostComputeEndpoint ep) {
        assertThat(ep.isRemote()).isTrue();
        assertThat(ep.ipAddress()).contains("10.244.2.17");
        assertThat(ep.providerAddress()).contains("192.168.10.22");
    }

    @Test
    void loadBalancerCreateDocumentEncodesInKubeProxyMemberOrderWithZeroMembersOmitted() throws Exception {
        HostComputeLoadBalancer lb = HostComputeLoadBalancer.of(List.of("ep-1", "ep-2"), "10.244.1.2", "10.96.0.1",
                new LoadBalancerPortMapping(6, 8080, 80, 2, 1), HostComputeLoadBalancer.FLAG_DSR);

        assertThat(mapper.writeValueAsString(lb)).isEqualTo("{\"HostComputeEndpoints\":[\"ep-1\",\"ep-2\"],"
                + "\"SourceVIP\":\"10.244.1.2\",\"FrontendVIPs\":[\"10.96.0.1\"],\"PortMappings\":[{\"Protocol\":6,"
                + "\"InternalPort\":8080,\"ExternalPort\":80,\"DistributionType\":2,\"Flags\":1}],"
                + "\"SchemaVersion\":{\"Major\":2,\"Minor\":0},\"Flags\":1}");
    }

    @Test
    void nodePortLoadBalancerWithoutVipOrFlagsOmitsThoseMembers() throws Exception {
        HostComputeLoadBalancer lb = HostComputeLoadBalancer.of(List.of("ep-1"), "", null,
                new LoadBalancerPortMapping(17, 53, 30053, 0, 0), 0);

        assertThat(mapper.writeValueAsString(lb)).isEqualTo("{\"HostComputeEndpoints\":[\"ep-1\"],"
                + "\"PortMappings\":[{\"Protocol\":17,\"InternalPort\":53,\"ExternalPort\":30053}],"
                + "\"SchemaVersion\":{\"Major\":2,\"Minor\":0}}");
    }

    @Test
    void loadBalancerFromHnsDecodesAndReencodesWithoutServerMembers() throws Exception {
        String name = "loadBalancerFromHnsDecodesAndReencodesWithoutServerMembers";
        HostComputeLoadBalancer lb = decode(name + ".json", HostComputeLoadBalancer.class);

        assertThat(lb.id()).isEqualTo("7b2cd4a9-3f1e-4c47-9e0b-2d9a51c6f013");
        assertThat(lb.flags()).isZero();
        assertThat(lb.portMapping()).get().extracting(LoadBalancerPortMapping::protocol,
                LoadBalancerPortMapping::distributionType).containsExactly(17, 0);
        assertThat(lb.frontendVip()).contains("10.96.0.10");
        golden.assertMatches(name + ".expected.json", mapper.writeValueAsString(lb));
    }

    @Test
    void overlayNetworkDecodesTypedPolicies() throws Exception {
        HostComputeNetwork net = decode("overlayNetworkDecodesTypedPolicies.json", HostComputeNetwork.class);

        assertThat(net.isOverlay()).isTrue();
        assertThat(net.providerAddress()).contains("192.168.10.21");
        assertThat(net.drMacAddress()).contains("0E-2A-0A-F4-01-01");
        assertThat(net.remoteSubnetRoutes()).containsExactly(
                new RemoteSubnetRoute("10.244.2.0/24", 4096, "192.168.10.22", "0E-2A-0A-F4-02-01"),
                new RemoteSubnetRoute("10.244.3.0/24", 4096, "192.168.10.23", "0E-2A-0A-F4-03-01"));
        assertThat(net.subnetPrefixes()).containsExactly("10.244.1.0/24");
        assertThat(net.ipams().get(0).subnets().get(0).routes().get(0).nextHop()).isEqualTo("10.244.1.1");
        // A round trip keeps every modelled member (server members such as Health are dropped).
        String encoded = mapper.writeValueAsString(net);
        golden.assertMatches("overlayNetworkDecodesTypedPolicies.expected.json", encoded);
        assertThat(mapper.readValue(encoded, HostComputeNetwork.class)).isEqualTo(net);
    }

    @Test
    void networkWithoutTypeIsNatAndNumericTypeIsReadByPosition() throws Exception {
        assertThat(mapper.readValue("{\"Name\":\"nat\"}", HostComputeNetwork.class).type()).isEqualTo("NAT");
        assertThat(mapper.readValue("{\"Name\":\"x\",\"Type\":5}", HostComputeNetwork.class).type())
                .isEqualTo("Overlay");
        assertThat(mapper.readValue("{\"Name\":\"x\",\"Type\":\"l2bridge\"}", HostComputeNetwork.class).isL2Bridge())
                .isTrue();
    }

    @Test
    void remoteEndpointDecodesFlagsAndProviderAddress() throws Exception {
        HostComputeEndpoint ep = decode("remoteEndpointDecodesFlagsAndProviderAddress.json", HostComputeEndpoint.class);

        assertIsTheRemoteEndpointOfPod17(ep);
        assertThat(ep.macAddress()).isEqualTo("02-11-0A-F4-02-11");
    }

    @Test
    void remoteEndpointRecipeEncodesLikeKubeProxy() throws Exception {
        HostComputeEndpoint ep = HostComputeEndpoint.remote("net-1", "10.244.2.17", "02-11-0A-F4-02-11",
                "192.168.10.22");

        assertThat(mapper.writeValueAsString(ep)).isEqualTo("{\"HostComputeNetwork\":\"net-1\",\"Policies\":[{"
                + "\"Type\":\"ProviderAddress\",\"Settings\":{\"ProviderAddress\":\"192.168.10.22\"}}],"
                + "\"IpConfigurations\":[{\"IpAddress\":\"10.244.2.17\"}],\"MacAddress\":\"02-11-0A-F4-02-11\","
                + "\"Flags\":1,\"SchemaVersion\":{\"Major\":2,\"Minor\":0}}");
    }

    @Test
    void membersDecodeInAnyLetterCase() throws Exception {
        HostComputeLoadBalancer lb = mapper.readValue("{\"id\":\"x\",\"hostcomputeendpoints\":[\"a\"],"
                + "\"FRONTENDVIPS\":[\"1.2.3.4\"],\"portMappings\":[{\"protocol\":6,\"internalport\":80,"
                + "\"ExternalPort\":8080}],\"flags\":3}", HostComputeLoadBalancer.class);

        assertThat(lb.id()).isEqualTo("x");
        assertThat(lb.hostComputeEndpoints()).containsExactly("a");
        assertThat(lb.frontendVips()).containsExactly("1.2.3.4");
        assertThat(lb.portMapping()).get().extracting(LoadBalancerPortMapping::internalPort).isEqualTo(80);
        assertThat(lb.isDsr()).isTrue();
        assertThat(lb.isIpv6()).isTrue();
    }

    @Test
    void v1PolicyListFromPowerShellDecodesElbPolicy() throws Exception {
        List<V1PolicyList> lists = mapper.readValue(golden.text("v1PolicyListFromPowerShellDecodesElbPolicy.json"),
                new TypeReference<List<V1PolicyList>>() { });

        assertThat(lists).hasSize(2);
        V1PolicyList dns = lists.get(0);
        assertThat(dns.endpointIds()).containsExactly("c3a1f7e2-58b4-4d0a-9a4e-0f6b2e8d7c11",
                "5e9d0b44-7a21-4f3c-8e6d-91b2c4a7f0de");
        assertThat(dns.elbPolicy()).get().extracting(V1Policy::vips).isEqualTo(List.of("10.96.0.10"));
        HostComputeLoadBalancer v2 = dns.toLoadBalancer().orElseThrow();
        assertThat(v2.portMapping()).contains(new LoadBalancerPortMapping(17, 53, 30053 - 30000, 0, 1));
        // A one-element array written by ConvertTo-Json as a bare string still decodes as a list.
        V1PolicyList nodePort = lists.get(1);
        assertThat(nodePort.endpointIds()).containsExactly("c3a1f7e2-58b4-4d0a-9a4e-0f6b2e8d7c11");
        assertThat(nodePort.toLoadBalancer().orElseThrow().isDsr()).isTrue();
        assertThat(nodePort.toLoadBalancer().orElseThrow().frontendVips()).isEmpty();
    }

    @Test
    void v1PolicyListIsTheV1ViewOfALoadBalancer() {
        HostComputeLoadBalancer lb = HostComputeLoadBalancer.of(List.of("ep-1"), "10.244.1.2", "10.96.0.10",
                new LoadBalancerPortMapping(6, 8443, 443, 0, 3), 1).withId("lb-1");

        V1PolicyList v1 = V1PolicyList.fromLoadBalancer(lb);

        assertThat(v1.references()).containsExactly("/endpoints/ep-1");
        assertThat(v1.toLoadBalancer()).contains(lb);
    }

    @Test
    void v1EndpointFromPowerShellDecodesRemoteFlagAndPa() throws Exception {
        V1Endpoint ep = decode("v1EndpointFromPowerShellDecodesRemoteFlagAndPa.json", V1Endpoint.class);

        assertThat(ep.isRemoteEndpoint()).isTrue();
        assertThat(ep.ipAddress()).isEqualTo("10.244.2.17");
        assertThat(ep.providerAddress()).contains("192.168.10.22");
        assertThat(ep.stateName()).isEqualTo("Created");
        HostComputeEndpoint v2 = ep.toEndpoint();
        assertIsTheRemoteEndpointOfPod17(v2);
        assertThat(v2.hostComputeNetwork()).isEqualTo("1F6F3C2A-9B7D-4E55-8C21-6A0E4D9B3F70");
    }

    @Test
    void v1NetworkDecodesSubnetsAndRemoteSubnetRoutes() throws Exception {
        V1Network net = decode("v1NetworkDecodesSubnetsAndRemoteSubnetRoutes.json", V1Network.class);

        assertThat(net.type()).isEqualTo("Overlay");
        assertThat(net.managementIp()).isEqualTo("192.168.10.21");
        assertThat(net.remoteSubnetRoutes()).containsExactly(
                new RemoteSubnetRoute("10.244.2.0/24", 4096, "192.168.10.22", "0E-2A-0A-F4-02-01"));
        assertThat(net.toNetwork().subnetPrefixes()).containsExactly("10.244.1.0/24");
    }

    @Test
    void errorRecordDecodesUnsignedHresult() throws Exception {
        HcnErrorRecord rec = decode("errorRecordDecodesUnsignedHresult.json", HcnErrorRecord.class);

        assertThat(rec.success()).isFalse();
        assertThat(rec.hresult()).isEqualTo(HResults.HCN_E_INVALID_JSON_REFERENCE);
        golden.assertMatches("errorRecordDecodesUnsignedHresult.json", mapper.writeValueAsString(
                HcnErrorRecord.failure(HResults.HCN_E_INVALID_JSON_REFERENCE, "A Reference is required. ")));
    }

    @Test
    void hnsCallEnvelopeDecodesOutput() throws Exception {
        HnsCallResponse resp = decode("hnsCallEnvelopeDecodesOutput.json", HnsCallResponse.class);

        assertThat(resp.success()).isTrue();
        assertThat(resp.output().get("Major").asInt()).isEqualTo(13);
    }

    @Test
    void queryFiltersAreJsonStringsInsideTheJson() throws Exception {
        assertThat(mapper.writeValueAsString(HostComputeQuery.all()))
                .isEqualTo("{\"SchemaVersion\":{\"Major\":2,\"Minor\":0}}");
        assertThat(mapper.writeValueAsString(HostComputeQuery.byId("0f1e2d3c-aaaa-bbbb-cccc-000000000001")))
                .isEqualTo("{\"SchemaVersion\":{\"Major\":2,\"Minor\":0},"
                        + "\"Filter\":\"{\\\"ID\\\":\\\"0f1e2d3c-aaaa-bbbb-cccc-000000000001\\\"}\"}");
        assertThat(mapper.writeValueAsString(HostComputeQuery.byName("vxlan0").detailed()))
                .isEqualTo("{\"SchemaVersion\":{\"Major\":2,\"Minor\":0},\"Flags\":1,"
                        + "\"Filter\":\"{\\\"Name\\\":\\\"vxlan0\\\"}\"}");
        HostComputeQuery q = mapper.readValue(mapper.writeValueAsString(HostComputeQuery.endpointsOfNetwork("n-1")),
                HostComputeQuery.class);
        assertThat(q.filterEntries(mapper)).containsExactly(java.util.Map.entry("VirtualNetwork", "n-1"));
    }
}
