package io.winproxy.hns.windows;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.WString;
import com.sun.jna.platform.win32.Guid;
import com.sun.jna.ptr.PointerByReference;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The stand-in library as the tests use it: the same {@link ComputeNetwork} and {@link VmCompute} interfaces the
 * product loads, its {@code CoTaskMemFree}, and the bookkeeping exports. The library is process-global; each
 * test starts with {@link #reset()}.
 */
final class StandIn {
    static final String LIBRARY = "computenetwork";
    /** The query hcsshim sends for "every object". */
    static final String QUERY_ALL = "{\"SchemaVersion\":{\"Major\":2,\"Minor\":0}}";

    final StandInLibrary control;
    final ComputeNetwork computeNetwork;
    final VmCompute vmCompute;
    final CoTaskMemFree coTaskMemFree;

    private StandIn() {
        control = Native.load(LIBRARY, StandInLibrary.class);
        computeNetwork = Native.load(LIBRARY, ComputeNetwork.class);
        vmCompute = Native.load(LIBRARY, VmCompute.class);
        coTaskMemFree = control::CoTaskMemFree;
    }

    /** Loads the library (from {@code jna.library.path}) and clears its state. */
    static StandIn fresh() {
        StandIn standIn = new StandIn();
        standIn.reset();
        return standIn;
    }

    void reset() {
        control.standin_reset();
    }

    WindowsHnsClient client() {
        return new WindowsHnsClient(computeNetwork, vmCompute, coTaskMemFree);
    }

    /** An HNS error record as HCN returns it: {@code {"Success":false,"Error":message,"ErrorCode":unsigned code}}. */
    static String errorRecord(String message, int errorCode) {
        return "{\"Success\":false,\"Error\":\"" + message + "\",\"ErrorCode\":" + Integer.toUnsignedString(errorCode)
                + "}";
    }

    void failNext(String function, int hresult, String record) {
        assertThat(control.standin_fail_next(function, hresult, record == null ? null : new WString(record)))
                .isEqualTo(1);
    }

    int calls(String function) {
        return control.standin_call_count(function);
    }

    String lastText(String function) {
        Pointer text = control.standin_last_text(function);
        return text == null ? null : text.getWideString(0);
    }

    /** The exports the library saw called since the reset or {@link #clearCallLog()}, in call order. */
    List<String> callLog() {
        Pointer log = control.standin_call_log();
        assertThat(log).as("the stand-in's call log overflowed").isNotNull();
        String text = log.getString(0);
        return text.isEmpty() ? List.of() : Arrays.asList(text.split(","));
    }

    void clearCallLog() {
        control.standin_clear_call_log();
    }

    /** The 16 bytes of the last GUID the export received, as hex. */
    String lastGuidBytes(String function) {
        byte[] bytes = new byte[16];
        assertThat(control.standin_last_guid(function, bytes)).as("%s received a GUID", function).isEqualTo(1);
        return HexFormat.of().formatHex(bytes);
    }

    /** Creates a network directly through the raw interface, releasing everything; returns its id. */
    String seedNetwork(String name, String type) {
        PointerByReference handle = new PointerByReference();
        PointerByReference error = new PointerByReference();
        String settings = "{\"Name\":\"" + name + "\",\"Type\":\"" + type + "\",\"Ipams\":[{\"Type\":\"Static\","
                + "\"Subnets\":[{\"IpAddressPrefix\":\"10.244.0.0/24\"}]}],"
                + "\"SchemaVersion\":{\"Major\":2,\"Minor\":0}}";
        int hresult = computeNetwork.HcnCreateNetwork(new Guid.GUID(), new WString(settings), handle, error);
        assertThat(hresult).isZero();
        assertThat(error.getValue()).isNull();
        PointerByReference properties = new PointerByReference();
        computeNetwork.HcnQueryNetworkProperties(handle.getValue(), new WString("{}"), properties, error);
        String document = properties.getValue().getWideString(0);
        control.CoTaskMemFree(properties.getValue());
        computeNetwork.HcnCloseNetwork(handle.getValue());
        return document.substring(document.indexOf("\"ID\":\"") + 6, document.indexOf("\"ID\":\"") + 42);
    }

    /** Every string handed out was freed exactly once and every handle closed exactly once. */
    void assertEverythingReleased() {
        assertThat(control.standin_bad_frees()).as("frees of unknown or already freed strings").isZero();
        assertThat(control.standin_strings_freed()).as("strings freed")
                .isEqualTo(control.standin_strings_allocated());
        assertThat(control.standin_bad_closes()).as("closes of unknown or already closed handles").isZero();
        assertThat(control.standin_handles_closed()).as("handles closed")
                .isEqualTo(control.standin_handles_opened());
    }
}
