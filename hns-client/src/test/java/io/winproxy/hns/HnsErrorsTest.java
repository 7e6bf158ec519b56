package io.winproxy.hns;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The one HNS error decoder: every known code decodes to a name, a cause, a fix and kubernetes#137766's label. */
class HnsErrorsTest {

    /** Every failure code {@link HResults} names (S_OK is not an error). */
    static List<Integer> everyFailureCode() {
        return HResults.failureCodes();
    }

    @Test
    void everyCodeHResultsNamesHasANameACauseAndAFix() {
        for (int code : everyFailureCode()) {
            HnsErrors.Diagnosis d = HnsErrors.diagnose(code);
            assertThat(d.name()).as(HResults.hex(code)).isEqualTo(HResults.name(code));
            assertThat(d.cause()).as(d.name()).isNotBlank().doesNotEndWith(".");
            assertThat(d.fix()).as(d.name()).isNotBlank();
            assertThat(d.errorLabel()).as(d.name())
                    .isIn("network_not_found", "port_already_exists", "not_implemented", "invalid_ip", "other");
        }
    }

    @Test
    void theCodesOperatorsMeetInPublicIssuesHaveRowsOfTheirOwn() {
        for (int code : new int[] {0x803B0013, 0x803B001E, 0x803B0007, 0x800700B7, 0x80070057, 0x8007000E,
                0x80070490, 0x803B0001, 0x803B0002, 0x803B0008, 0x803B001B, 0x803B001C, 0x800706BA, 0x800706BB,
                0x800706BE, 0x80070426, 0x803B0020, 0x80004001}) {
            assertThat(HnsErrors.hasOwnRow(code)).as(HResults.hex(code)).isTrue();
        }
        assertThat(HnsErrors.diagnose(0x803B0013).cause()).contains("VIP, protocol and port");
        assertThat(HnsErrors.diagnose(0x803B0013).fix()).contains("winproxy hns list");
        assertThat(HnsErrors.diagnose(0x80070057).cause()).contains("invalid number of destinations");
        assertThat(HnsErrors.diagnose(0x803B001E).cause()).contains("subnet");
        assertThat(HnsErrors.diagnose(0x800706BA).cause()).contains("restarting");
        assertThat(HnsErrors.diagnose(0x8007000E).name()).isEqualTo("E_OUTOFMEMORY");
    }

    @Test
    void theErrorLabelIsKubernetes137766s() {
        assertThat(HnsErrors.diagnose(HResults.HCN_E_NETWORK_NOT_FOUND).errorLabel()).isEqualTo("network_not_found");
        assertThat(HnsErrors.diagnose(HResults.HCN_E_PORT_ALREADY_EXISTS).errorLabel())
                .isEqualTo("port_already_exists");
        assertThat(HnsErrors.diagnose(HResults.E_NOTIMPL).errorLabel()).isEqualTo("not_implemented");
        assertThat(HnsErrors.diagnose(HResults.HCN_E_INVALID_IP).errorLabel()).isEqualTo("invalid_ip");
        assertThat(HnsErrors.diagnose(HResults.ERROR_ALREADY_EXISTS).errorLabel()).isEqualTo("other");
        assertThat(HnsErrors.diagnose(0x80001234).errorLabel()).isEqualTo("other");
    }

    @Test
    void anUnknownCodeGetsAGenericRowNamedByItsHexForm() {
        HnsErrors.Diagnosis d = HnsErrors.diagnose(0x80001234);
        assertThat(d.name()).isEqualTo("0x80001234");
        assertThat(d.cause()).contains("no description");
        assertThat(d.fix()).contains("hns explain");
        assertThat(HnsErrors.hasOwnRow(0x80001234)).isFalse();
    }

    @Test
    void theLogValueIsTheLowerCaseHexAndTheQuotedCause() {
        HnsErrors.Diagnosis d = HnsErrors.diagnose(new HnsException(0x803B0013, "HcnCreateLoadBalancer", ""));
        assertThat(d.logValue()).startsWith("hresult=0x803b0013 cause=\"another load balancer").endsWith("\"");
        assertThat(HnsErrors.logValue(HResults.E_ACCESSDENIED)).doesNotContain("\n")
                .startsWith("hresult=0x80070005 cause=\"");
        assertThat(d.summary()).startsWith("0x803B0013 HCN_E_PORT_ALREADY_EXISTS: another load balancer")
                .contains(". Fix: find the holder");
    }
}
