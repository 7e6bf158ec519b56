package io.winproxy.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The test parser must reject what Prometheus would reject, or the exposition tests prove nothing. */
class PrometheusTextParserTest {

    @Test
    void parsesFamiliesWithHelpTypeLabelsAndHistogramSeries() {
        Map<String, PrometheusTextParser.Family> families = PrometheusTextParser.parse("""
                # HELP a_total Some \\\\ help\\nmore
                # TYPE a_total counter
                a_total{code="200",path="x\\"y"} 3
                # TYPE h histogram
                h_bucket{le="1"} 1
                h_bucket{le="+Inf"} 2
                h_sum 4.5
                h_count 2
                """);

        assertThat(families.get("a_total").help()).isEqualTo("Some \\ help\nmore");
        assertThat(families.get("a_total").value("a_total", Map.of("code", "200", "path", "x\"y"))).isEqualTo(3);
        assertThat(families.get("h").type()).isEqualTo("histogram");
        assertThat(families.get("h").samples()).hasSize(4);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "a 1",
        "a{b=\"1\"} 1\n# TYPE a gauge\n",
        "a 1\nb 1\na{x=\"1\"} 2\n",
        "a 1\na 2\n",
        "1a 1\n",
        "a{1b=\"x\"} 1\n",
        "a{b=\"\\x\"} 1\n",
        "a one\n",
        "a  1\n",
        "# TYPE a gauge\n# TYPE a gauge\na 1\n",
        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
        "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",
        "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 2\n",
        "# TYPE h histogram\nh 1\n"})
    void rejectsMalformedExpositions(String text) {
        assertThatThrownBy(() -> PrometheusTextParser.parse(text)).isInstanceOf(RuntimeException.class);
    }
}
