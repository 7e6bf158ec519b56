package io.winproxy.hns.windows;

import static io.winproxy.hns.windows.TestIds.ERROR_ALREADY_EXISTS;
import static io.winproxy.hns.windows.TestIds.UNKNOWN_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.jna.Pointer;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import org.junit.jupiter.api.Test;

/**
 * Tier 2 against the stand-in: every returned string freed once, HRESULTs and error records become exceptions, and
 * every export invocation is reported to the listener exactly as the library saw it.
 */
class HcnCallsTest extends StandInBindingTest<HcnCalls> {
    private static final int HCN_E_INVALID_JSON = 0x803B001B;

    @Override
    HcnCalls bind(StandIn library, ObjectMapper mapper) {
        return new HcnCalls(library.computeNetwork, library.coTaskMemFree, mapper);
    }

    @Test
    void aCreatedLoadBalancerIsEnumeratedOpenedAndQueried() {
        String id;
        try (HcnHandle created = calls.createLoadBalancer(null, "{\"FrontendVIPs\":[\"10.96.0.10\"]}")) {
            String document = calls.queryLoadBalancerProperties(created, StandIn.QUERY_ALL);
            id = document.substring(7, 43);
            assertThat(document).contains("\"FrontendVIPs\":[\"10.96.0.10\"]");
        }

        assertThat(calls.enumerateLoadBalancers(StandIn.QUERY_ALL)).containsExactly(id);
        try (HcnHandle opened = calls.openLoadBalancer(id)) {
            assertThat(calls.queryLoadBalancerProperties(opened, StandIn.QUERY_ALL)).startsWith("{\"ID\":\"" + id);
        }
        assertThat(standIn.calls("HcnCloseLoadBalancer")).isEqualTo(2);
    }

    @Test
    void aNegativeHresultWithAnErrorRecordBecomesAnExceptionCarryingBoth() {
        assertThatThrownBy(() -> calls.deleteLoadBalancer(UNKNOWN_ID))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.hresult()).isEqualTo(HResults.ERROR_NOT_FOUND);
                    assertThat(e.isNotFound()).isTrue();
                    assertThat(e.operation()).isEqualTo("HcnDeleteLoadBalancer");
                    assertThat(e.errorRecord()).contains("\"ErrorCode\":2147943568");
                });
    }

    @Test
    void aNegativeHresultWithoutAnErrorRecordIsStillAFailure() {
        standIn.failNext("HcnEnumerateEndpoints", HResults.E_NOTIMPL, null);

        assertThatThrownBy(() -> calls.enumerateEndpoints(StandIn.QUERY_ALL))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.isNotImplemented()).isTrue();
                    assertThat(e.errorRecord()).isEmpty();
                });
    }

    @Test
    void anErrorRecordWithHresultZeroIsAFailureWithTheRecordsErrorCode() {
        String record = StandIn.errorRecord("The specified port already exists.", HResults.HCN_E_PORT_ALREADY_EXISTS);
        standIn.failNext("HcnEnumerateLoadBalancers", 0, record);

        assertThatThrownBy(() -> calls.enumerateLoadBalancers(StandIn.QUERY_ALL))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.hresult()).isEqualTo(HResults.HCN_E_PORT_ALREADY_EXISTS);
                    assertThat(e.isAlreadyExists()).isTrue();
                    assertThat(e.errorRecord()).isEqualTo(record);
                });
    }

    @Test
    void anErrorRecordWithHresultZeroAndNoErrorCodeIsEFail() {
        standIn.failNext("HcnDeleteNetwork", 0, "something went wrong");
        String id = standIn.seedNetwork("cbr0", "L2Bridge");

        assertThatThrownBy(() -> calls.deleteNetwork(id))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.hresult()).isEqualTo(0x80004005);
                    assertThat(e.errorRecord()).isEqualTo("something went wrong");
                });
    }

    @Test
    void aHandleThatArrivesWithAnErrorRecordIsClosedBeforeTheExceptionIsThrown() {
        standIn.failNext("HcnCreateLoadBalancer", 0, StandIn.errorRecord("partial", HResults.E_INVALIDARG));

        assertThatThrownBy(() -> calls.createLoadBalancer(null, "{}"))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.E_INVALIDARG));
        assertThat(standIn.control.standin_handles_opened()).isEqualTo(1);
        assertThat(standIn.calls("HcnCloseLoadBalancer")).isEqualTo(1);
        assertThat(listener.calls()).containsExactly("HcnCreateLoadBalancer", "HcnCloseLoadBalancer");
    }

    @Test
    void aDocumentThatIsNotJsonIsRejectedByHnsWithItsErrorRecord() {
        assertThatThrownBy(() -> calls.enumerateNetworks("not json"))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.hresult()).isEqualTo(HCN_E_INVALID_JSON);
                    assertThat(e.errorRecord()).contains("Invalid JSON document string.");
                });
    }

    @Test
    void anIdThatIsNotAGuidIsRejectedNamingTheObjectWithoutCallingHns() {
        assertThatThrownBy(() -> calls.openLoadBalancer("kube-dns"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid load balancer ID \"kube-dns\"");
        assertThat(standIn.calls("HcnOpenLoadBalancer")).isZero();
        assertThat(listener.calls()).isEmpty();
    }

    @Test
    void bracedAndLowerCaseIdsAreAccepted() {
        String id = standIn.seedNetwork("ext", "L2Bridge");

        try (HcnHandle handle = calls.openNetwork("{" + id.toLowerCase() + "}")) {
            assertThat(calls.queryNetworkProperties(handle, StandIn.QUERY_ALL)).contains(id);
        }
    }

    @Test
    void closingAHandleTwiceClosesItOnce() {
        HcnHandle handle = calls.createLoadBalancer(null, "{}");

        handle.close();
        handle.close();

        assertThat(standIn.calls("HcnCloseLoadBalancer")).isEqualTo(1);
        assertThatThrownBy(() -> calls.queryLoadBalancerProperties(handle, StandIn.QUERY_ALL))
                .isInstanceOf(IllegalStateException.class);
        assertThat(listener.calls()).as("a call on a closed handle never reaches the library")
                .containsExactly("HcnCreateLoadBalancer", "HcnCloseLoadBalancer");
    }

    @Test
    void aFailedCloseIsLoggedNotThrown() {
        HcnHandle handle = calls.createLoadBalancer(null, "{}");
        Pointer raw = handle.pointer();
        standIn.failNext("HcnCloseLoadBalancer", 0x80070006, null);

        handle.close();

        assertThat(standIn.calls("HcnCloseLoadBalancer")).isEqualTo(1);
        // The stand-in kept the handle open (the injected failure skipped the close); release it for the check.
        standIn.computeNetwork.HcnCloseLoadBalancer(raw);
    }

    @Test
    void theZeroGuidIsPassedWhenNoIdIsGivenAndTheGivenIdOtherwise() {
        calls.createLoadBalancer(null, "{}").close();
        assertThat(standIn.lastGuidBytes("HcnCreateLoadBalancer")).isEqualTo("0".repeat(32));

        calls.createLoadBalancer("00112233-4455-6677-8899-AABBCCDDEEFF", "{}").close();
        assertThat(standIn.lastGuidBytes("HcnCreateLoadBalancer")).isEqualTo("33221100554477668899aabbccddeeff");
    }

    @Test
    void anEndpointIsCreatedOnTheNetworkHandle() {
        String networkId = standIn.seedNetwork("vxlan0", "Overlay");

        try (HcnHandle network = calls.openNetwork(networkId);
             HcnHandle endpoint = calls.createEndpoint(network, null, "{\"Name\":\"pod\"}")) {
            assertThat(calls.queryEndpointProperties(endpoint, StandIn.QUERY_ALL))
                    .contains("\"HostComputeNetwork\":\"" + networkId + "\"");
        }
        assertThat(calls.enumerateEndpoints(StandIn.QUERY_ALL)).hasSize(1);
    }

    @Test
    void everyInvocationIsReportedByExportNameInCallOrderFailuresAndClosesIncluded() {
        String networkId = standIn.seedNetwork("vxlan0", "Overlay");
        standIn.clearCallLog();
        standIn.failNext("HcnEnumerateLoadBalancers", HResults.E_ACCESSDENIED, null);

        try (HcnHandle network = calls.openNetwork(networkId);
             HcnHandle endpoint = calls.createEndpoint(network, null, "{}")) {
            calls.queryEndpointProperties(endpoint, StandIn.QUERY_ALL);
        }
        assertThatThrownBy(() -> calls.enumerateLoadBalancers(StandIn.QUERY_ALL)).isInstanceOf(HnsException.class);
        assertThatThrownBy(() -> calls.openLoadBalancer(UNKNOWN_ID)).isInstanceOf(HnsException.class);
        assertThatThrownBy(() -> calls.deleteEndpoint(UNKNOWN_ID)).isInstanceOf(HnsException.class);
        calls.enumerateEndpoints(StandIn.QUERY_ALL);

        assertThat(listener.calls()).containsExactly("HcnOpenNetwork", "HcnCreateEndpoint",
                "HcnQueryEndpointProperties", "HcnCloseEndpoint", "HcnCloseNetwork", "HcnEnumerateLoadBalancers",
                "HcnOpenLoadBalancer", "HcnDeleteEndpoint", "HcnEnumerateEndpoints");
        assertThat(listener.calls()).isEqualTo(standIn.callLog());
    }

    @Test
    void aCallerChosenIdIsPassedAndASecondObjectWithItFailsWithAlreadyExists() {
        String id = "00112233-4455-6677-8899-AABBCCDDEEFF";
        calls.createLoadBalancer(id, "{}").close();

        assertThatThrownBy(() -> calls.createLoadBalancer(id, "{}"))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.hresult()).isEqualTo(ERROR_ALREADY_EXISTS);
                    assertThat(e.operation()).isEqualTo("HcnCreateLoadBalancer");
                    assertThat(e.errorRecord()).contains(Integer.toUnsignedString(ERROR_ALREADY_EXISTS));
                });
        try (HcnHandle opened = calls.openLoadBalancer(id.toLowerCase())) {
            assertThat(calls.queryLoadBalancerProperties(opened, StandIn.QUERY_ALL)).startsWith("{\"ID\":\"" + id);
        }
    }
}
