package io.winproxy.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GoDurationTest {

    @ParameterizedTest(name = "{0} parses to {1} ms")
    @CsvSource({"30s, 30000", "1m0s, 60000", "15m, 900000", "500ms, 500", "1.5s, 1500", "1h30m, 5400000",
            "0, 0", "0s, 0", "-1s, -1000", "2h0m0s, 7200000", "1000us, 1"})
    void goDurationTextParsesToTheSameLength(String text, long millis) {
        assertThat(GoDuration.parse(text)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest(name = "{0} is rejected")
    @ValueSource(strings = {"", "abc", "30", "1x", "s", "1.2.3s", "--1s"})
    void textThatIsNotADurationIsRejectedWithGoWording(String text) {
        assertThatThrownBy(() -> GoDuration.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("time: ");
    }

    @ParameterizedTest(name = "{1} ms formats as {0}")
    @CsvSource({"0s, 0", "500ms, 500", "1s, 1000", "30s, 30000", "1m0s, 60000", "15m0s, 900000",
            "1h0m0s, 3600000", "24h0m0s, 86400000", "1.5s, 1500", "1m30.25s, 90250", "-1s, -1000"})
    void durationsFormatExactlyAsGoPrintsThem(String text, long millis) {
        assertThat(GoDuration.format(Duration.ofMillis(millis))).isEqualTo(text);
    }

    @ParameterizedTest(name = "{0} survives format and parse")
    @ValueSource(strings = {"1ns", "1500ns", "2.5ms", "1h2m3.004s"})
    void formattingThenParsingGivesTheSameDuration(String text) {
        Duration d = GoDuration.parse(text);
        assertThat(GoDuration.parse(GoDuration.format(d))).isEqualTo(d);
    }
}
