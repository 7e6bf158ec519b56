package io.winproxy.hns.windows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.IpConfiguration;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** Tier 3 against the stand-in: hcsshim's call sequences, with every string freed and every handle closed. */
@EnabledOnOs(OS.LINUX)
class WindowsHnsClientTest {
    private static final String UNKNOWN_ID = "0A0B0C0D-1111-2222-3333-444455556666";

    private StandIn standIn;
    private WindowsHnsClient client;
    private String networkId;

    @BeforeEach
    void setUp() {
        standIn = StandIn.fresh();
        client = standIn.client();
        networkId = standIn.seedNetwork("vxlan0", "Overlay");
    }

    @AfterEach
    void everyStringAndHandleIsReleased() {
        standIn.assertEverythingReleased();
    }

    @Test
    void createLoadBalancerPassesTheZeroGuidAndReturnsTheIdHnsAssigned() {
        HostComputeEndpoint backend = endpoint("10.244.1.5");

        HostComputeLoadBalancer created = client.createLoadBalancer(loadBalancer("10.96.0.10", backend.id()));

        assertThat(standIn.lastGuidBytes("HcnCreateLoadBalancer")).isEqualTo("0".repeat(32));
        assertThat(standIn.lastText("HcnCreateLoadBalancer")).doesNotContain("\"ID\"")
                .contains("\"SchemaVersion\":{\"Major\":2,\"Minor\":0}");
        assertThat(created.id()).matches("[0-9A-F-]{36}");
        assertThat(created.frontendVips()).containsExactly("10.96.0.10");
        assertThat(created.hostComputeEndpoints()).containsExactly(backend.id());
        assertThat(created.portMappings()).containsExactly(new LoadBalancerPortMapping(6, 8080, 80, 0, 1));
        assertThat(client.listLoadBalancerIds()).containsExactly(created.id());
    }

    @Test
    void listingLoadBalancersEnumeratesOnceThenOpensQueriesAndClosesEachId() {
        HostComputeEndpoint backend = endpoint("10.244.1.5");
        HostComputeLoadBalancer first = client.createLoadBalancer(loadBalancer("10.96.0.10", backend.id()));
        HostComputeLoadBalancer second = client.createLoadBalancer(loadBalancer("10.96.0.11", backend.id()));
        int closesBefore = standIn.calls("HcnCloseLoadBalancer");

        assertThat(client.listLoadBalancers()).containsExactly(first, second);
        assertThat(standIn.calls("HcnEnumerateLoadBalancers")).isEqualTo(1);
        assertThat(standIn.calls("HcnOpenLoadBalancer")).isEqualTo(2);
        assertThat(standIn.calls("HcnQueryLoadBalancerProperties")).isEqualTo(4);
        assertThat(standIn.calls("HcnCloseLoadBalancer") - closesBefore).isEqualTo(2);
        assertThat(standIn.lastText("HcnQueryLoadBalancerProperties")).isEqualTo(StandIn.QUERY_ALL);
    }

    @Test
    void aLoadBalancerThatVanishesBetweenEnumerateAndOpenIsSkipped() {
        HostComputeEndpoint backend = endpoint("10.244.1.5");
        HostComputeLoadBalancer first = client.createLoadBalancer(loadBalancer("10.96.0.10", backend.id()));
        client.createLoadBalancer(loadBalancer("10.96.0.11", backend.id()));
        HostComputeLoadBalancer third = client.createLoadBalancer(loadBalancer("10.96.0.12", backend.id()));
        standIn.control.standin_vanish_after_next_enumerate(1);

        assertThat(client.listLoadBalancers()).containsExactly(first, third);
        assertThat(standIn.calls("HcnOpenLoadBalancer")).isEqualTo(3);
    }

    @Test
    void anObjectThatVanishesBetweenOpenAndQueryIsSkipped() {
        endpoint("10.244.1.5");
        HostComputeEndpoint kept = endpoint("10.244.1.6");
        standIn.failNext("HcnQueryEndpointProperties", HResults.ERROR_NOT_FOUND, null);

        assertThat(client.listEndpoints(networkId)).containsExactly(kept);
        assertThat(standIn.calls("HcnCloseEndpoint")).isEqualTo(2 + 2);
    }

    @Test
    void anyOtherFailureWhileListingIsThrownAndTheOpenHandleIsStillClosed() {
        client.createLoadBalancer(loadBalancer("10.96.0.10", endpoint("10.244.1.5").id()));
        standIn.failNext("HcnQueryLoadBalancerProperties", 0x80070005, null);

        assertThatThrownBy(() -> client.listLoadBalancers())
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.hresult()).isEqualTo(0x80070005);
                    assertThat(e.operation()).isEqualTo("HcnQueryLoadBalancerProperties");
                });
    }

    @Test
    void getLoadBalancerSendsTheIdAsADoubleEncodedFilter() {
        HostComputeLoadBalancer created = client.createLoadBalancer(
                loadBalancer("10.96.0.10", endpoint("10.244.1.5").id()));
        client.createLoadBalancer(loadBalancer("10.96.0.11", endpoint("10.244.1.6").id()));

        assertThat(client.getLoadBalancer(created.id())).contains(created);
        assertThat(standIn.lastText("HcnEnumerateLoadBalancers")).isEqualTo(
                "{\"SchemaVersion\":{\"Major\":2,\"Minor\":0},\"Filter\":\"{\\\"ID\\\":\\\"" + created.id()
                        + "\\\"}\"}");
        assertThat(standIn.lastText("HcnQueryLoadBalancerProperties"))
                .isEqualTo(standIn.lastText("HcnEnumerateLoadBalancers"));
    }

    @Test
    void getLoadBalancerOfAnUnknownIdIsEmptyWithoutOpeningAnything() {
        assertThat(client.getLoadBalancer(UNKNOWN_ID)).isEmpty();
        assertThat(standIn.calls("HcnOpenLoadBalancer")).isZero();
    }

    @Test
    void aFilteredLookupThatHnsAnswersWithNotFoundIsEmpty() {
        standIn.failNext("HcnEnumerateNetworks", HResults.ERROR_NOT_FOUND, null);

        assertThat(client.getNetworkByName("vxlan0")).isEmpty();
    }

    @Test
    void modifyLoadBalancerSendsTheWholeDocumentWithItsIdAndReturnsWhatHnsStored() {
        standIn.control.standin_set_version(15, 5);
        HostComputeEndpoint a = endpoint("10.244.1.5");
        HostComputeEndpoint b = endpoint("10.244.1.6");
        HostComputeLoadBalancer created = client.createLoadBalancer(loadBalancer("10.96.0.10", a.id()));

        HostComputeLoadBalancer modified = client.modifyLoadBalancer(created.id(),
                loadBalancer("10.96.0.10", a.id(), b.id()));

        assertThat(modified.id()).isEqualTo(created.id());
        assertThat(modified.hostComputeEndpoints()).containsExactly(a.id(), b.id());
        assertThat(standIn.lastText("HcnModifyLoadBalancer")).startsWith("{\"ID\":\"" + created.id() + "\"")
                .contains("\"PortMappings\":[{\"Protocol\":6,\"InternalPort\":8080,\"ExternalPort\":80,\"Flags\":1}]");
        assertThat(client.getLoadBalancer(created.id())).contains(modified);
    }

    @Test
    void modifyLoadBalancerOnHns154IsNotImplementedWithoutCallingHns() {
        // 15.4 is Windows Server 2025, where the modify keeps the old backends (kubernetes#131466).
        HostComputeLoadBalancer created = client.createLoadBalancer(
                loadBalancer("10.96.0.10", endpoint("10.244.1.5").id()));

        assertThatThrownBy(() -> client.modifyLoadBalancer(created.id(), created))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.isNotImplemented()).isTrue();
                    assertThat(e.operation()).isEqualTo("HcnModifyLoadBalancer");
                    assertThat(e.getMessage()).contains("HNS 15.4").contains("needs 15.5");
                });
        assertThat(standIn.calls("HcnOpenLoadBalancer")).isZero();
        assertThat(standIn.calls("HcnModifyLoadBalancer")).isZero();
    }

    @Test
    void modifyLoadBalancerBelowHns154IsNotImplementedToo() {
        standIn.control.standin_set_version(13, 3);
        HostComputeLoadBalancer created = client.createLoadBalancer(
                loadBalancer("10.96.0.10", endpoint("10.244.1.5").id()));

        assertThatThrownBy(() -> client.modifyLoadBalancer(created.id(), created))
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.getMessage()).contains("HNS 13.3"));
        assertThat(standIn.calls("HcnModifyLoadBalancer")).isZero();
    }

    @Test
    void aLoadBalancerReferencingAnUnknownEndpointIsRejectedByHns() {
        assertThatThrownBy(() -> client.createLoadBalancer(loadBalancer("10.96.0.10", UNKNOWN_ID)))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.hresult()).isEqualTo(HResults.HCN_E_INVALID_JSON_REFERENCE);
                    assertThat(e.operation()).isEqualTo("HcnCreateLoadBalancer");
                });
        assertThat(client.listLoadBalancerIds()).isEmpty();
    }

    @Test
    void deleteLoadBalancerRemovesItAndAnUnknownIdIsNotFound() {
        HostComputeLoadBalancer created = client.createLoadBalancer(
                loadBalancer("10.96.0.10", endpoint("10.244.1.5").id()));

        client.deleteLoadBalancer(created.id());

        assertThat(client.listLoadBalancerIds()).isEmpty();
        assertThatThrownBy(() -> client.deleteLoadBalancer(created.id()))
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.isNotFound()).isTrue());
    }

    @Test
    void createEndpointOpensTheNetworkCreatesOnItsHandleWithTheZeroGuidAndClosesBoth() {
        HostComputeEndpoint created = endpoint("10.244.1.5");

        assertThat(standIn.lastGuidBytes("HcnCreateEndpoint")).isEqualTo("0".repeat(32));
        assertThat(standIn.calls("HcnOpenNetwork")).isEqualTo(1);
        assertThat(standIn.calls("HcnCloseNetwork")).isEqualTo(2);
        assertThat(standIn.calls("HcnCloseEndpoint")).isEqualTo(1);
        assertThat(created.hostComputeNetwork()).isEqualTo(networkId);
        assertThat(created.ipConfigurations()).containsExactly(new IpConfiguration("10.244.1.5", 32));
        assertThat(created.isRemote()).isTrue();
    }

    @Test
    void createEndpointOnAnUnknownNetworkIsNotFound() {
        assertThatThrownBy(() -> client.createEndpoint(UNKNOWN_ID, endpointSettings("10.244.1.5")))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.isNotFound()).isTrue();
                    assertThat(e.operation()).isEqualTo("HcnOpenNetwork");
                });
        assertThat(standIn.calls("HcnCreateEndpoint")).isZero();
    }

    @Test
    void listEndpointsReturnsOnlyTheEndpointsOfThatNetwork() {
        HostComputeEndpoint mine = endpoint("10.244.1.5");
        String otherNetwork = standIn.seedNetwork("other", "L2Bridge");
        client.createEndpoint(otherNetwork, endpointSettings("10.0.0.9"));

        assertThat(client.listEndpoints(networkId)).containsExactly(mine);
        assertThat(standIn.lastText("HcnEnumerateEndpoints")).contains("VirtualNetwork");
    }

    @Test
    void deleteEndpointRemovesIt() {
        HostComputeEndpoint created = endpoint("10.244.1.5");

        client.deleteEndpoint(created.id());

        assertThat(client.getEndpoint(created.id())).isEmpty();
    }

    @Test
    void networksAreFoundByNameAndById() {
        String other = standIn.seedNetwork("ext", "L2Bridge");

        assertThat(client.getNetworkByName("ext")).map(HostComputeNetwork::id).contains(other);
        assertThat(client.getNetworkByName("missing")).isEmpty();
        assertThat(client.getNetworkById(networkId)).map(HostComputeNetwork::name).contains("vxlan0");
        assertThat(client.getNetworkById(networkId.toLowerCase())).map(HostComputeNetwork::type).contains("Overlay");
        assertThat(client.listNetworks()).extracting(HostComputeNetwork::name).containsExactly("vxlan0", "ext");
    }

    @Test
    void anIdThatIsNotAGuidIsRejectedWithAMessageNamingTheObject() {
        assertThatThrownBy(() -> client.getLoadBalancer("kube-system/kube-dns"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid load balancer ID \"kube-system/kube-dns\"");
        assertThatThrownBy(() -> client.listEndpoints("vxlan0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid network ID \"vxlan0\"");
    }

    @Test
    void theVersionIsProbedOnceAndTheCapabilitiesFollowIt() {
        standIn.control.standin_set_version(12, 0);

        assertThat(client.capabilities().version()).isEqualTo(new HnsVersion(12, 0));
        assertThat(client.capabilities().sessionAffinity()).isTrue();
        assertThat(client.capabilities().modifyLoadBalancer()).isFalse();
        assertThat(standIn.calls("HNSCall")).isEqualTo(1);
    }

    @Test
    void aFailedVersionProbeIsThrownAndRetriedOnTheNextCall() {
        standIn.failNext("HNSCall", 0x80070005, null);

        assertThatThrownBy(() -> client.capabilities()).isInstanceOf(HnsException.class);
        assertThat(client.capabilities().version()).isEqualTo(new HnsVersion(15, 4));
        assertThat(standIn.calls("HNSCall")).isEqualTo(2);
    }

    private HostComputeEndpoint endpoint(String ip) {
        return client.createEndpoint(networkId, endpointSettings(ip));
    }

    private static HostComputeEndpoint endpointSettings(String ip) {
        return new HostComputeEndpoint(null, "ep-" + ip, null, List.of(),
                List.of(new IpConfiguration(ip, 32)), null, HostComputeEndpoint.FLAG_REMOTE_ENDPOINT, null);
    }

    private static HostComputeLoadBalancer loadBalancer(String vip, String... endpointIds) {
        return new HostComputeLoadBalancer(null, List.of(endpointIds), "10.244.0.2", List.of(vip),
                List.of(new LoadBalancerPortMapping(6, 8080, 80, 0, 1)), null, 0);
    }
}
