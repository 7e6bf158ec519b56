package io.winproxy.hns.explain;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsErrors;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every HRESULT of the decoder table through {@code hns explain}: as an HCN error record, and as the log line winproxy
 * writes for a failed HNS call (klog text with {@code hresult="0x..." cause="..."}, klog JSON, and the bare
 * {@code hresult=0x... cause="..."} form), each decoded to the same name, cause and fix.
 */
class DecodedErrorExplainTest {
    private final HnsExplainer explainer = new HnsExplainer();

    static List<Integer> codes() {
        return HResults.failureCodes();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("codes")
    void anErrorRecordIsExplainedWithItsDecodedCauseAndFix(int code) {
        Explanation e = explainer.explain("{\"Success\":false,\"Error\":\"localized text\",\"ErrorCode\":"
                + Integer.toUnsignedString(code) + "}");
        assertDecoded(e, code);
        assertThat(e.text()).contains("Likely cause", "Fix");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("codes")
    void winproxysLogLineForAFailedCallIsExplainedWithItsDecodedCauseAndFix(int code) {
        HnsErrors.Diagnosis d = HnsErrors.diagnose(code);
        String err = "HcnCreateLoadBalancer failed: " + HResults.describe(code);
        String text = "E1128 02:40:00.123456    4242 Execution.java:210] \"Load balancer create failed\""
                + " service=\"default/web:http\" err=\"" + err + "\" hresult=\"" + d.hex() + "\" cause=\""
                + d.cause().replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        assertDecoded(explainer.explain(text), code);
        assertDecoded(explainer.explain("E1128 02:40:00.123456    4242 Execution.java:210] \"Load balancer create"
                + " failed\" " + d.logValue()), code);
        String json = "{\"ts\":1764297600123.456,\"caller\":\"dataplane/Execution.java:210\",\"msg\":\"Load balancer"
                + " create failed\",\"err\":\"" + err + "\",\"hresult\":\"" + d.hex() + "\"}";
        assertDecoded(explainer.explain(json), code);
    }

    private static void assertDecoded(Explanation e, int code) {
        HnsErrors.Diagnosis d = HnsErrors.diagnose(code);
        assertThat(e.kind()).isEqualTo("error-record");
        assertThat(e.json().get("hresult").asText()).isEqualTo(HResults.hex(code));
        assertThat(e.json().get("name").asText()).isEqualTo(d.name());
        assertThat(e.json().get("cause").asText()).isEqualTo(d.cause());
        assertThat(e.json().get("fix").asText()).isEqualTo(d.fix());
        assertThat(e.json().get("errorLabel").asText()).isEqualTo(d.errorLabel());
    }
}
