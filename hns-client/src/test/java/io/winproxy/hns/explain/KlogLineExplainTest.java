package io.winproxy.hns.explain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code hns explain} given the line where an operator finds an HNS error: kube-proxy's (winkernel's) klog output,
 * text and JSON, with the HCN error record escaped inside the quoted {@code err} value.
 */
class KlogLineExplainTest {
    private final HnsExplainer explainer = new HnsExplainer();

    /** winkernel's line for a load balancer HNS refused, klog text format (the record Go-quoted inside err). */
    static final String TEXT_LINE = "E1126 20:15:32.123456    4242 proxier.go:1386] \"Error applying LoadBalancer"
            + " policy\" err=\"hcnCreateLoadBalancer failed in Win32: Cannot create a file when that file already"
            + " exists. (0x800700b7) {\\\"Success\\\":false,\\\"Error\\\":\\\"Cannot create a file when that file"
            + " already exists. \\\",\\\"ErrorCode\\\":2147942583}\" serviceName=\"default/web:http\"";

    /** The same event in component-base's JSON format. */
    static final String JSON_LINE = "{\"ts\":1764188132123.456,\"caller\":\"winkernel/proxier.go:1386\","
            + "\"msg\":\"Error applying LoadBalancer policy\",\"serviceName\":\"default/web:http\","
            + "\"err\":\"hcnCreateLoadBalancer failed in Win32: The specified port already exists. (0x803b0013)"
            + " {\\\"Success\\\":false,\\\"Error\\\":\\\"The specified port already exists. \\\","
            + "\\\"ErrorCode\\\":2151350291}\"}";

    /** A klog text line and a klog JSON record are explained by the HNS error record inside their err value. */
    @ParameterizedTest(name = "{1}")
    @MethodSource("klogLines")
    void aKlogLineIsExplainedByTheErrorRecordInsideItsErrValue(String line, String hresult, String name,
                                                               String message) {
        Explanation e = explainer.explain(line);
        assertThat(e.kind()).isEqualTo("error-record");
        assertThat(e.json().get("hresult").asText()).isEqualTo(hresult);
        assertThat(e.json().get("name").asText()).isEqualTo(name);
        assertThat(e.json().get("message").asText()).isEqualTo(message);
    }

    static Stream<Arguments> klogLines() {
        return Stream.of(
                Arguments.of(TEXT_LINE, "0x800700B7", "ERROR_ALREADY_EXISTS",
                        "Cannot create a file when that file already exists."),
                Arguments.of(JSON_LINE, "0x803B0013", "HCN_E_PORT_ALREADY_EXISTS", "The specified port already exists."));
    }

    @Test
    void aContainerRuntimeLogPrefixBeforeTheKlogHeaderIsSkipped() {
        Explanation e = explainer.explain("2026-11-26T20:15:32.1234567Z stderr F " + TEXT_LINE + "\r\n");
        assertThat(e.json().get("hresult").asText()).isEqualTo("0x800700B7");
    }

    @Test
    void anErrValueWithOnlyTheHresultIsExplainedByThatHresult() {
        Explanation e = explainer.explain("W1126 20:15:32.123456    4242 hns.go:220] \"Failed to delete load"
                + " balancer\" err=\"hcnDeleteLoadBalancer failed in Win32: The specified port already exists."
                + " (0x803b0013)\" lbID=\"8d4c2a10-3b5e-4f67-9a81-b2c3d4e5f607\"");
        assertThat(e.json().get("name").asText()).isEqualTo("HCN_E_PORT_ALREADY_EXISTS");
        assertThat(e.json().get("message").asText()).isEqualTo("The specified port already exists.");
    }

    @Test
    void klogsMultiLineValueIsRead() {
        String line = "E1126 20:15:32.123456    4242 proxier.go:1386] \"Error applying LoadBalancer policy\" err=<\n"
                + "\thcnCreateLoadBalancer failed in Win32: The specified port already exists. (0x803b0013)\n"
                + "\t{\"Success\":false,\"Error\":\"The specified port already exists. \",\"ErrorCode\":2151350291}\n"
                + " >\n";
        assertThat(explainer.explain(line).json().get("name").asText()).isEqualTo("HCN_E_PORT_ALREADY_EXISTS");
    }

    @Test
    void aLogLineWithoutAnHnsErrorIsRefusedInOneLine() {
        assertThatThrownBy(() -> explainer.explain("I1126 20:15:32.123456    4242 proxier.go:800] \"Syncing"
                + " proxy rules\" ipFamily=\"IPv4\""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("a kube-proxy log line with no HNS error in it").hasMessageNotContaining("\n");
        assertThatThrownBy(() -> explainer.explain("{\"ts\":1764188132123.456,\"caller\":\"x.go:1\",\"msg\":\"Syncing\","
                + "\"v\":2}")).hasMessageStartingWith("a kube-proxy log line with no HNS error in it");
    }

    @Test
    void goEscapesAreUndone() {
        assertThat(KlogLine.unquote("a\\\"b\\\\c\\nd\\te\\x41\\u00e9")).isEqualTo("a\"b\\c\nd\teAé");
    }
}
