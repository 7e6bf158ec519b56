package io.winproxy.hns.windows;

import static io.winproxy.hns.windows.TestIds.EP_ID;
import static io.winproxy.hns.windows.TestIds.EP_ID_2;
import static io.winproxy.hns.windows.TestIds.EP_ID_3;
import static io.winproxy.hns.windows.TestIds.ERROR_ALREADY_EXISTS;
import static io.winproxy.hns.windows.TestIds.LB_ID;
import static io.winproxy.hns.windows.TestIds.UNKNOWN_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.NativeCallListener;
import io.winproxy.hns.NetworkSession;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.IpConfiguration;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.hns.model.SchemaVersion;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Tier 3 against the stand-in: the native call sequence of each method (by export name, as the
 * {@link NativeCallListener} reports it and as the library saw it), with every string freed and every handle closed.
 */
@EnabledOnOs(OS.LINUX)
class WindowsHnsClientTest {

    private StandIn standIn;
    private WindowsHnsClient client;
    private RecordingListener listener;
    private String networkId;

    @BeforeEach
    void setUp() {
        standIn = StandIn.fresh();
        client = standIn.client();
        networkId = standIn.seedNetwork("vxlan0", "Overlay");
        listener = new RecordingListener();
        client.setNativeCallListener(listener);
        startRecording();
    }

    @AfterEach
    void everyCallWasReportedAndEveryStringAndHandleReleased() {
        reported();
        standIn.assertEverythingReleased();
    }

    /** Forgets the calls made so far, on both sides. */
    private void startRecording() {
        listener.clear();
        standIn.clearCallLog();
    }

    /** The calls since {@link #startRecording()}; what the listener was told is exactly what the library saw. */
    private List<String> reported() {
        assertThat(listener.calls()).as("calls reported to the listener").isEqualTo(standIn.callLog());
        return listener.calls();
    }

    /** Seeds a network through the raw interface (not reported), then starts recording afresh. */
    private String seedNetwork(String name, String type) {
        String id = standIn.seedNetwork(name, type);
        startRecording();
        return id;
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
    void getLoadBalancerOpensTheGuidQueriesAndClosesWithoutEnumerating() {
        HostComputeLoadBalancer created = client.createLoadBalancer(
                loadBalancer("10.96.0.10", endpoint("10.244.1.5").id()));
        client.createLoadBalancer(loadBalancer("10.96.0.11", endpoint("10.244.1.6").id()));
        startRecording();

        assertThat(client.getLoadBalancer(created.id())).contains(created);

        assertThat(reported()).containsExactly("HcnOpenLoadBalancer", "HcnQueryLoadBalancerProperties",
                "HcnCloseLoadBalancer");
        assertThat(standIn.lastText("HcnQueryLoadBalancerProperties")).isEqualTo(StandIn.QUERY_ALL);
        assertThat(client.getLoadBalancer("{" + created.id().toLowerCase() + "}")).contains(created);
    }

    // getLoadBalancer of an unknown id (empty after one HcnOpenLoadBalancer): HnsClientParityTest, both clients.

    @Test
    void getLoadBalancerClassifiesNotFoundByHresultNotByTheLocalizedMessage() {
        standIn.failNext("HcnOpenLoadBalancer", HResults.ERROR_NOT_FOUND,
                StandIn.errorRecord("\u627e\u4e0d\u5230\u5143\u7d20\u3002", HResults.ERROR_NOT_FOUND));

        assertThat(client.getLoadBalancer(UNKNOWN_ID)).isEmpty();
        assertThat(reported()).containsExactly("HcnOpenLoadBalancer");
    }

    @Test
    void getLoadBalancerThrowsAnyOtherFailureOfTheOpen() {
        standIn.failNext("HcnOpenLoadBalancer", HResults.E_ACCESSDENIED,
                StandIn.errorRecord("Element not found.", HResults.E_ACCESSDENIED));

        assertThatThrownBy(() -> client.getLoadBalancer(UNKNOWN_ID))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.hresult()).isEqualTo(HResults.E_ACCESSDENIED);
                    assertThat(e.operation()).isEqualTo("HcnOpenLoadBalancer");
                });
        assertThat(reported()).containsExactly("HcnOpenLoadBalancer");
    }

    @Test
    void getLoadBalancerClosesTheHandleWhenTheQueryFails() {
        HostComputeLoadBalancer created = client.createLoadBalancer(
                loadBalancer("10.96.0.10", endpoint("10.244.1.5").id()));
        standIn.failNext("HcnQueryLoadBalancerProperties", HResults.E_ACCESSDENIED, null);
        startRecording();

        assertThatThrownBy(() -> client.getLoadBalancer(created.id()))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.operation()).isEqualTo("HcnQueryLoadBalancerProperties"));
        assertThat(reported()).containsExactly("HcnOpenLoadBalancer", "HcnQueryLoadBalancerProperties",
                "HcnCloseLoadBalancer");
    }

    @Test
    void getEndpointOpensTheGuidQueriesAndClosesWithoutEnumerating() {
        HostComputeEndpoint created = endpoint("10.244.1.5");
        startRecording();

        assertThat(client.getEndpoint(created.id())).contains(created);

        assertThat(reported()).containsExactly("HcnOpenEndpoint", "HcnQueryEndpointProperties", "HcnCloseEndpoint");
        assertThat(standIn.calls("HcnEnumerateEndpoints")).isZero();
    }

    @Test
    void getEndpointIsEmptyWhenTheOpenSaysNotFoundInAnyOfItsForms() {
        assertThat(client.getEndpoint(UNKNOWN_ID)).isEmpty();
        standIn.failNext("HcnOpenEndpoint", HResults.HCN_E_ENDPOINT_NOT_FOUND, null);
        assertThat(client.getEndpoint(UNKNOWN_ID)).isEmpty();

        assertThat(reported()).containsExactly("HcnOpenEndpoint", "HcnOpenEndpoint");
    }

    @Test
    void getEndpointThrowsAnyOtherFailureOfTheOpen() {
        standIn.failNext("HcnOpenEndpoint", HResults.RPC_S_SERVER_UNAVAILABLE, null);

        assertThatThrownBy(() -> client.getEndpoint(UNKNOWN_ID))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.RPC_S_SERVER_UNAVAILABLE));
        assertThat(reported()).containsExactly("HcnOpenEndpoint");
    }

    @Test
    void anEndpointDeletedBetweenOpenAndQueryIsEmptyAndItsHandleClosed() {
        HostComputeEndpoint created = endpoint("10.244.1.5");
        standIn.failNext("HcnQueryEndpointProperties", HResults.ERROR_NOT_FOUND, null);
        startRecording();

        assertThat(client.getEndpoint(created.id())).isEmpty();
        assertThat(reported()).containsExactly("HcnOpenEndpoint", "HcnQueryEndpointProperties", "HcnCloseEndpoint");
    }

    @Test
    void aFilteredLookupThatHnsAnswersWithNotFoundIsEmpty() {
        standIn.failNext("HcnEnumerateNetworks", HResults.ERROR_NOT_FOUND, null);

        assertThat(client.getNetworkByName("vxlan0")).isEmpty();
    }

    @Test
    void createLoadBalancerWithoutAnIdIsCreateQueryAndClose() {
        HostComputeEndpoint backend = endpoint("10.244.1.5");
        startRecording();

        client.createLoadBalancer(loadBalancer("10.96.0.10", backend.id()));

        assertThat(reported()).containsExactly("HcnCreateLoadBalancer", "HcnQueryLoadBalancerProperties",
                "HcnCloseLoadBalancer");
    }

    @Test
    void createLoadBalancerWithACallerChosenIdPassesItAsTheIdAndDoesNotQuery() {
        HostComputeEndpoint backend = endpoint("10.244.1.5");
        HostComputeLoadBalancer settings = loadBalancer("10.96.0.10", backend.id()).withId(LB_ID);
        startRecording();

        HostComputeLoadBalancer created = client.createLoadBalancer(settings);

        assertThat(reported()).containsExactly("HcnCreateLoadBalancer", "HcnCloseLoadBalancer");
        assertThat(standIn.lastGuidBytes("HcnCreateLoadBalancer")).isEqualTo("ff19966f868b11d0b42d00c04fc964ff");
        assertThat(standIn.lastText("HcnCreateLoadBalancer")).doesNotContain("\"ID\"");
        assertThat(created).isEqualTo(new HostComputeLoadBalancer(LB_ID, List.of(backend.id()), "10.244.0.2",
                List.of("10.96.0.10"), List.of(new LoadBalancerPortMapping(6, 8080, 80, 0, 1)), SchemaVersion.V2, 0));
        assertThat(client.listLoadBalancerIds()).containsExactly(LB_ID);
        assertThat(client.getLoadBalancer(LB_ID)).contains(created);
    }

    @Test
    void aBracedLowerCaseCallerIdIsPassedAndReturnedBare() {
        HostComputeEndpoint backend = endpoint("10.244.1.5");

        HostComputeLoadBalancer created = client.createLoadBalancer(
                loadBalancer("10.96.0.10", backend.id()).withId("{" + LB_ID.toLowerCase() + "}"));

        assertThat(created.id()).isEqualTo(LB_ID.toLowerCase());
        assertThat(standIn.lastGuidBytes("HcnCreateLoadBalancer")).isEqualTo("ff19966f868b11d0b42d00c04fc964ff");
        assertThat(client.getLoadBalancer(LB_ID)).isPresent();
    }

    @Test
    void aSecondLoadBalancerWithTheSameIdFailsWithAlreadyExistsAndLeavesTheFirst() {
        HostComputeEndpoint backend = endpoint("10.244.1.5");
        HostComputeLoadBalancer first = client.createLoadBalancer(
                loadBalancer("10.96.0.10", backend.id()).withId(LB_ID));
        startRecording();

        assertThatThrownBy(() -> client.createLoadBalancer(loadBalancer("10.96.0.11", backend.id()).withId(LB_ID)))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.hresult()).isEqualTo(ERROR_ALREADY_EXISTS);
                    assertThat(e.operation()).isEqualTo("HcnCreateLoadBalancer");
                });
        assertThat(reported()).containsExactly("HcnCreateLoadBalancer");
        assertThat(client.getLoadBalancer(LB_ID)).contains(first);
    }

    @Test
    void aCreateThatReturnsAHandleWithAnErrorRecordStillClosesIt() {
        HostComputeEndpoint backend = endpoint("10.244.1.5");
        standIn.failNext("HcnCreateLoadBalancer", 0, StandIn.errorRecord("x", HResults.HCN_E_PORT_ALREADY_EXISTS));
        startRecording();

        assertThatThrownBy(() -> client.createLoadBalancer(loadBalancer("10.96.0.10", backend.id()).withId(LB_ID)))
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.isAlreadyExists()).isTrue());
        assertThat(reported()).containsExactly("HcnCreateLoadBalancer", "HcnCloseLoadBalancer");
    }

    @Test
    void aCallerIdThatIsNotAGuidIsRejectedBeforeAnyNativeCall() {
        HostComputeEndpoint backend = endpoint("10.244.1.5");
        startRecording();

        assertThatThrownBy(() -> client.createLoadBalancer(loadBalancer("10.96.0.10", backend.id()).withId("web")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid load balancer ID \"web\"");
        assertThatThrownBy(() -> client.createEndpoint(networkId, endpointSettings("10.244.1.6").withId("pod")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid endpoint ID \"pod\"");
        assertThat(reported()).isEmpty();
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
    void modifyLoadBalancerIsOpenModifyQueryCloseAfterOneVersionProbe() {
        standIn.control.standin_set_version(15, 5);
        HostComputeEndpoint a = endpoint("10.244.1.5");
        HostComputeLoadBalancer created = client.createLoadBalancer(loadBalancer("10.96.0.10", a.id()));
        startRecording();

        client.modifyLoadBalancer(created.id(), loadBalancer("10.96.0.10", a.id()));
        client.modifyLoadBalancer(created.id(), loadBalancer("10.96.0.11", a.id()));

        List<String> modify = List.of("HcnOpenLoadBalancer", "HcnModifyLoadBalancer",
                "HcnQueryLoadBalancerProperties", "HcnCloseLoadBalancer");
        assertThat(reported()).isEqualTo(
                Stream.of(List.of("HNSCall"), modify, modify).flatMap(List::stream).toList());
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
        assertThat(reported()).doesNotContain("HcnOpenLoadBalancer", "HcnModifyLoadBalancer");
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
        startRecording();

        client.deleteLoadBalancer(created.id());
        assertThat(reported()).containsExactly("HcnDeleteLoadBalancer");

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
    void createEndpointWithoutAnIdIsOpenNetworkCreateQueryCloseClose() {
        client.createEndpoint(networkId, endpointSettings("10.244.1.5"));

        assertThat(reported()).containsExactly("HcnOpenNetwork", "HcnCreateEndpoint", "HcnQueryEndpointProperties",
                "HcnCloseEndpoint", "HcnCloseNetwork");
    }

    @Test
    void createEndpointWithACallerChosenIdPassesItAndReturnsTheSettingsOnTheNetworkWithoutQuerying() {
        HostComputeEndpoint created = client.createEndpoint(networkId,
                endpointSettings("10.244.1.5").withId(EP_ID));

        assertThat(reported()).containsExactly("HcnOpenNetwork", "HcnCreateEndpoint", "HcnCloseEndpoint",
                "HcnCloseNetwork");
        assertThat(standIn.lastGuidBytes("HcnCreateEndpoint")).isEqualTo("ba284e1ba12fd211883f0016d3cca427");
        assertThat(created).isEqualTo(new HostComputeEndpoint(EP_ID, "ep-10.244.1.5", networkId, List.of(),
                List.of(new IpConfiguration("10.244.1.5", 32)), null, HostComputeEndpoint.FLAG_REMOTE_ENDPOINT,
                SchemaVersion.V2));
        assertThat(client.getEndpoint(EP_ID)).contains(created);
        assertThat(client.listEndpointIds(networkId)).containsExactly(EP_ID);
    }

    @Test
    void aSecondEndpointWithTheSameIdFailsWithAlreadyExistsAndTheNetworkIsStillClosed() {
        client.createEndpoint(networkId, endpointSettings("10.244.1.5").withId(EP_ID));
        startRecording();

        assertThatThrownBy(() -> client.createEndpoint(networkId, endpointSettings("10.244.1.6").withId(EP_ID)))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(ERROR_ALREADY_EXISTS));
        assertThat(reported()).containsExactly("HcnOpenNetwork", "HcnCreateEndpoint", "HcnCloseNetwork");
    }

    @Test
    void aSessionCreatingThreeEndpointsOpensAndClosesTheNetworkOnce() {
        List<HostComputeEndpoint> created;
        try (NetworkSession session = client.openNetwork(networkId)) {
            assertThat(session.networkId()).isEqualTo(networkId);
            created = List.of(
                    session.createEndpoint(endpointSettings("10.244.1.5").withId(EP_ID)),
                    session.createEndpoint(endpointSettings("10.244.1.6").withId(EP_ID_2)),
                    session.createEndpoint(endpointSettings("10.244.1.7").withId(EP_ID_3)));
        }

        assertThat(reported()).containsExactly("HcnOpenNetwork",
                "HcnCreateEndpoint", "HcnCloseEndpoint",
                "HcnCreateEndpoint", "HcnCloseEndpoint",
                "HcnCreateEndpoint", "HcnCloseEndpoint",
                "HcnCloseNetwork");
        assertThat(created).extracting(HostComputeEndpoint::hostComputeNetwork).containsOnly(networkId);
        assertThat(client.listEndpoints(networkId)).containsExactlyInAnyOrderElementsOf(created);
    }

    @Test
    void aSessionEndpointWithoutAnIdIsQueriedForIt() {
        HostComputeEndpoint created;
        try (NetworkSession session = client.openNetwork(networkId)) {
            created = session.createEndpoint(endpointSettings("10.244.1.5"));
        }

        assertThat(reported()).containsExactly("HcnOpenNetwork", "HcnCreateEndpoint", "HcnQueryEndpointProperties",
                "HcnCloseEndpoint", "HcnCloseNetwork");
        assertThat(created.id()).matches("[0-9A-F-]{36}");
    }

    @Test
    void aSessionClosesTheNetworkOnceEvenWhenACreateFailsAndRefusesCreatesAfterClose() {
        NetworkSession session = client.openNetwork(networkId);
        session.createEndpoint(endpointSettings("10.244.1.5").withId(EP_ID));
        assertThatThrownBy(() -> session.createEndpoint(endpointSettings("10.244.1.6").withId(EP_ID)))
                .isInstanceOf(HnsException.class);

        session.close();
        session.close();

        assertThat(reported()).containsExactly("HcnOpenNetwork", "HcnCreateEndpoint", "HcnCloseEndpoint",
                "HcnCreateEndpoint", "HcnCloseNetwork");
        assertThatThrownBy(() -> session.createEndpoint(endpointSettings("10.244.1.7")))
                .isInstanceOf(IllegalStateException.class);
        assertThat(reported()).hasSize(5);
    }

    @Test
    void aFailingCloseOfTheSessionsNetworkIsNotThrown() {
        NetworkSession session = client.openNetwork(networkId);
        standIn.failNext("HcnCloseNetwork", 0x80070006, null);

        session.close();

        assertThat(reported()).containsExactly("HcnOpenNetwork", "HcnCloseNetwork");
        // The injected failure skipped the stand-in's close; release the handle for the leak check.
        assertThat(standIn.control.standin_release_open_handles()).isEqualTo(1);
    }

    @Test
    void openingASessionOnAnUnknownNetworkIsNotFound() {
        assertThatThrownBy(() -> client.openNetwork(UNKNOWN_ID))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.isNotFound()).isTrue();
                    assertThat(e.operation()).isEqualTo("HcnOpenNetwork");
                });
        assertThat(reported()).containsExactly("HcnOpenNetwork");
    }

    @Test
    void listEndpointIdsIsOneFilteredEnumerateOfThatNetwork() {
        HostComputeEndpoint mine = endpointBesideOneOnAnotherNetwork();
        startRecording();

        assertThat(client.listEndpointIds(networkId)).containsExactly(mine.id());

        assertThat(reported()).containsExactly("HcnEnumerateEndpoints");
        assertThat(standIn.lastText("HcnEnumerateEndpoints")).isEqualTo(
                "{\"SchemaVersion\":{\"Major\":2,\"Minor\":0},\"Filter\":\"{\\\"VirtualNetwork\\\":\\\"" + networkId
                        + "\\\"}\"}");
    }

    @Test
    void listLoadBalancerIdsIsOneEnumerate() {
        HostComputeLoadBalancer created = client.createLoadBalancer(
                loadBalancer("10.96.0.10", endpoint("10.244.1.5").id()));
        startRecording();

        assertThat(client.listLoadBalancerIds()).containsExactly(created.id());
        assertThat(reported()).containsExactly("HcnEnumerateLoadBalancers");
    }

    @Test
    void listEndpointsReturnsOnlyTheEndpointsOfThatNetwork() {
        HostComputeEndpoint mine = endpointBesideOneOnAnotherNetwork();

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
        String other = seedNetwork("ext", "L2Bridge");

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

    @Test
    void failedCallsAndTheVersionProbeAreReportedToo() {
        standIn.failNext("HNSCall", HResults.E_ACCESSDENIED, null);
        assertThatThrownBy(() -> client.capabilities()).isInstanceOf(HnsException.class);
        assertThatThrownBy(() -> client.deleteEndpoint(UNKNOWN_ID)).isInstanceOf(HnsException.class);

        assertThat(reported()).containsExactly("HNSCall", "HcnDeleteEndpoint");
    }

    @Test
    void aReplacedListenerGetsTheCallsFromThenOnAndNoneStopsReporting() {
        RecordingListener second = new RecordingListener();
        client.listLoadBalancerIds();

        client.setNativeCallListener(second);
        client.getEndpoint(UNKNOWN_ID);
        client.setNativeCallListener(NativeCallListener.NONE);
        client.listLoadBalancerIds();
        client.setNativeCallListener(null);
        client.listLoadBalancerIds();

        assertThat(listener.calls()).containsExactly("HcnEnumerateLoadBalancers");
        assertThat(second.calls()).containsExactly("HcnOpenEndpoint");
        assertThat(standIn.callLog()).containsExactly("HcnEnumerateLoadBalancers", "HcnOpenEndpoint",
                "HcnEnumerateLoadBalancers", "HcnEnumerateLoadBalancers");
        startRecording();
        client.setNativeCallListener(listener);
    }

    @Test
    void aListenerThatThrowsDoesNotDisturbTheCallsOrLeakHandles() {
        HostComputeLoadBalancer created = client.createLoadBalancer(
                loadBalancer("10.96.0.10", endpoint("10.244.1.5").id()));
        client.setNativeCallListener(function -> {
            throw new IllegalStateException("listener bug");
        });

        assertThat(client.getLoadBalancer(created.id())).contains(created);

        client.setNativeCallListener(listener);
        startRecording();
    }

    /** An endpoint on this test's network, after one on another network (which the network's lists leave out). */
    private HostComputeEndpoint endpointBesideOneOnAnotherNetwork() {
        HostComputeEndpoint mine = endpoint("10.244.1.5");
        client.createEndpoint(seedNetwork("other", "L2Bridge"), endpointSettings("10.0.0.9"));
        return mine;
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
