package io.winproxy.hns.windows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import org.junit.jupiter.api.Test;

/** Tier 2 for HNSCall against the stand-in: the version probe and the v1 envelope. */
class VmComputeCallsTest extends StandInBindingTest<VmComputeCalls> {
    @Override
    VmComputeCalls bind(StandIn library, ObjectMapper mapper) {
        return new VmComputeCalls(library.vmCompute, library.coTaskMemFree, mapper);
    }

    @Test
    void theVersionIsReadFromGetGlobalsVersionWithAnEmptyRequest() {
        standIn.control.standin_set_version(12, 1);

        assertThat(calls.version()).isEqualTo(new HnsVersion(12, 1));
        assertThat(standIn.lastText("HNSCall")).isEqualTo("GET /globals/version ");
    }

    @Test
    void aFailureEnvelopeIsAnExceptionNamingTheRequest() {
        assertThatThrownBy(() -> calls.call("GET", "/nonsense", ""))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.operation()).isEqualTo("HNSCall GET /nonsense");
                    assertThat(e.hresult()).isEqualTo(0x80004005);
                    assertThat(e.errorRecord()).contains("Invalid request path");
                });
    }

    @Test
    void aFailureEnvelopeWithAnErrorCodeKeepsThatCode() {
        standIn.failNext("HNSCall", 0, StandIn.errorRecord("x", HResults.E_NOTIMPL));

        assertThatThrownBy(() -> calls.version())
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.isNotImplemented()).isTrue());
    }

    @Test
    void aNegativeHresultIsAnException() {
        standIn.failNext("HNSCall", 0x80070005, null);

        assertThatThrownBy(() -> calls.version())
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.hresult()).isEqualTo(0x80070005));
    }

    @Test
    void anOutputWithoutMajorAndMinorIsAnException() {
        standIn.failNext("HNSCall", 0, "{\"Success\":true,\"Output\":{}}");

        assertThatThrownBy(() -> calls.version())
                .isInstanceOf(HnsException.class)
                .hasMessageContaining("no Major/Minor");
    }

    @Test
    void everyHnsCallIsReportedAsHnsCallFailedOnesIncluded() {
        standIn.failNext("HNSCall", 0x80070005, null);

        assertThatThrownBy(() -> calls.version()).isInstanceOf(HnsException.class);
        calls.version();
        assertThatThrownBy(() -> calls.call("GET", "/nonsense", "")).isInstanceOf(HnsException.class);

        assertThat(listener.calls()).containsExactly("HNSCall", "HNSCall", "HNSCall").isEqualTo(standIn.callLog());
    }
}
