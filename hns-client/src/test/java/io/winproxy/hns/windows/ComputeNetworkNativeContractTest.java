package io.winproxy.hns.windows;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Pointer;
import com.sun.jna.WString;
import com.sun.jna.platform.win32.Guid;
import com.sun.jna.ptr.PointerByReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Tier 1 against the gcc-built stand-in: the JNA interfaces marshal exactly what the C prototypes of
 * ComputeNetwork.h expect (GUID layout, wide strings, out-parameters, error records).
 */
@EnabledOnOs(OS.LINUX)
class ComputeNetworkNativeContractTest {
    private StandIn standIn;
    private ComputeNetwork hcn;
    /** The out-parameters most tests pass (fresh for each test). */
    private final PointerByReference handle = new PointerByReference();
    private final PointerByReference error = new PointerByReference();

    @BeforeEach
    void setUp() {
        standIn = StandIn.fresh();
        hcn = standIn.computeNetwork;
    }

    @Test
    void aGuidIsPassedByReferenceWithData1Data2AndData3LittleEndian() {
        hcn.HcnOpenLoadBalancer(Guid.GUID.fromString("{00112233-4455-6677-8899-AABBCCDDEEFF}"), handle, error);
        standIn.control.CoTaskMemFree(error.getValue());

        assertThat(standIn.lastGuidBytes("HcnOpenLoadBalancer")).isEqualTo("33221100554477668899aabbccddeeff");
    }

    @Test
    void theZeroGuidArrivesAsSixteenZeroBytes() {
        hcn.HcnCreateLoadBalancer(Guids.zero(), new WString("{}"), handle, error);
        hcn.HcnCloseLoadBalancer(handle.getValue());

        assertThat(standIn.lastGuidBytes("HcnCreateLoadBalancer")).isEqualTo("0".repeat(32));
    }

    @Test
    void wideStringsTravelInAndOutUnchangedIncludingNonAsciiText() {
        String settings = "{\"Name\":\"r\u00e9seau-\u03b1\u2192\u03b2\",\"Type\":\"Overlay\"}";
        PointerByReference properties = new PointerByReference();

        assertThat(hcn.HcnCreateNetwork(Guids.zero(), new WString(settings), handle, error)).isZero();
        assertThat(hcn.HcnQueryNetworkProperties(handle.getValue(), new WString("{\"SchemaVersion\":{}}"), properties,
                error)).isZero();
        String document = properties.getValue().getWideString(0);
        standIn.control.CoTaskMemFree(properties.getValue());
        hcn.HcnCloseNetwork(handle.getValue());

        assertThat(standIn.lastText("HcnCreateNetwork")).isEqualTo(settings);
        assertThat(document).contains("\"Name\":\"r\u00e9seau-\u03b1\u2192\u03b2\"").startsWith("{\"ID\":\"");
        standIn.assertEverythingReleased();
    }

    @Test
    void outParametersCarryTheHandleAndTheIdListAndNoErrorRecordOnSuccess() {
        PointerByReference ids = new PointerByReference();

        assertThat(hcn.HcnCreateLoadBalancer(Guids.zero(), new WString("{}"), handle, error)).isZero();
        assertThat(handle.getValue()).isNotNull();
        assertThat(error.getValue()).isNull();
        assertThat(hcn.HcnEnumerateLoadBalancers(new WString(StandIn.QUERY_ALL), ids, error)).isZero();
        String list = ids.getValue().getWideString(0);
        standIn.control.CoTaskMemFree(ids.getValue());
        hcn.HcnCloseLoadBalancer(handle.getValue());

        assertThat(list).matches("\\[\"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}\"]");
        standIn.assertEverythingReleased();
    }

    @Test
    void aFailingCallReturnsItsHresultAndAnErrorRecordWithTheSameErrorCode() {
        int hresult = hcn.HcnDeleteEndpoint(Guid.GUID.fromString("11111111-2222-3333-4444-555555555555"), error);
        Pointer record = error.getValue();
        String text = record.getWideString(0);
        standIn.control.CoTaskMemFree(record);

        assertThat(hresult).isEqualTo(0x80070490);
        assertThat(text).isEqualTo("{\"Success\":false,\"Error\":\"Element not found.\",\"ErrorCode\":"
                + Integer.toUnsignedString(0x80070490) + "}");
        standIn.assertEverythingReleased();
    }

    @Test
    void hnsCallReturnsTheVersionEnvelope() {
        standIn.control.standin_set_version(13, 3);
        PointerByReference response = new PointerByReference();

        int hresult = standIn.vmCompute.HNSCall(new WString("GET"), new WString("/globals/version"), new WString(""),
                response);
        String envelope = response.getValue().getWideString(0);
        standIn.control.CoTaskMemFree(response.getValue());

        assertThat(hresult).isZero();
        assertThat(envelope).isEqualTo("{\"Success\":true,\"Output\":{\"Major\":13,\"Minor\":3}}");
    }

    @Test
    void theStandInDetectsAStringFreedTwiceAndAHandleClosedTwice() {
        hcn.HcnDeleteLoadBalancer(Guids.zero(), error);
        hcn.HcnCreateLoadBalancer(Guids.zero(), new WString("{}"), handle, new PointerByReference());

        standIn.control.CoTaskMemFree(error.getValue());
        standIn.control.CoTaskMemFree(error.getValue());
        assertThat(hcn.HcnCloseLoadBalancer(handle.getValue())).isZero();
        assertThat(hcn.HcnCloseLoadBalancer(handle.getValue())).isEqualTo(0x80070006);

        assertThat(standIn.control.standin_bad_frees()).isEqualTo(1);
        assertThat(standIn.control.standin_bad_closes()).isEqualTo(1);
    }

    @Test
    void aNonZeroIdOnCreateBecomesTheObjectsIdAndOpensIt() {
        String networkId = standIn.seedNetwork("vxlan0", "Overlay");
        Guid.GUID id = Guid.GUID.fromString("00112233-4455-6677-8899-AABBCCDDEEFF");
        PointerByReference network = new PointerByReference();
        PointerByReference endpoint = new PointerByReference();
        PointerByReference properties = new PointerByReference();

        assertThat(hcn.HcnOpenNetwork(Guid.GUID.fromString(networkId), network, error)).isZero();
        assertThat(hcn.HcnCreateEndpoint(network.getValue(), id, new WString("{}"), endpoint, error)).isZero();
        hcn.HcnCloseEndpoint(endpoint.getValue());
        hcn.HcnCloseNetwork(network.getValue());
        assertThat(hcn.HcnOpenEndpoint(id, endpoint, error)).isZero();
        assertThat(hcn.HcnQueryEndpointProperties(endpoint.getValue(), new WString(StandIn.QUERY_ALL), properties,
                error)).isZero();
        String document = properties.getValue().getWideString(0);
        standIn.control.CoTaskMemFree(properties.getValue());
        hcn.HcnCloseEndpoint(endpoint.getValue());

        assertThat(error.getValue()).isNull();
        assertThat(document).startsWith("{\"ID\":\"00112233-4455-6677-8899-AABBCCDDEEFF\"");
        standIn.assertEverythingReleased();
    }

    @Test
    void aDuplicateIdOnCreateIsErrorAlreadyExistsWithItsErrorRecordAndNoHandle() {
        Guid.GUID id = Guid.GUID.fromString("00112233-4455-6677-8899-AABBCCDDEEFF");
        assertThat(hcn.HcnCreateLoadBalancer(id, new WString("{}"), handle, error)).isZero();
        hcn.HcnCloseLoadBalancer(handle.getValue());

        int hresult = hcn.HcnCreateLoadBalancer(id, new WString("{}"), handle, error);
        String record = error.getValue().getWideString(0);
        standIn.control.CoTaskMemFree(error.getValue());

        assertThat(hresult).isEqualTo(0x800700B7);
        assertThat(handle.getValue()).isNull();
        assertThat(record).contains("\"ErrorCode\":" + Integer.toUnsignedString(0x800700B7));
        standIn.assertEverythingReleased();
    }

    @Test
    void theCallLogListsEveryExportCalledInOrder() {
        hcn.HcnCreateLoadBalancer(Guids.zero(), new WString("{}"), handle, error);
        hcn.HcnCloseLoadBalancer(handle.getValue());
        hcn.HcnDeleteEndpoint(Guids.zero(), error);
        standIn.control.CoTaskMemFree(error.getValue());

        assertThat(standIn.callLog()).containsExactly("HcnCreateLoadBalancer", "HcnCloseLoadBalancer",
                "HcnDeleteEndpoint");
        standIn.clearCallLog();
        assertThat(standIn.callLog()).isEmpty();
    }
}
