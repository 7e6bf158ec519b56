package io.winproxy.agent.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class DynamicPortRangeTest {
    @Test
    void netshsAnswerGivesStartAndCountInAnyDisplayLanguage() {
        assertThat(DynamicPortRange.parse("\r\nProtocol tcp Dynamic Port Range\r\n---------------------------------\r\n"
                + "Start Port      : 49152\r\nNumber of Ports : 16384\r\n\r\n"))
                .contains(new DynamicPortRange(49152, 16384));
        assertThat(DynamicPortRange.parse("Protokoll tcp Dynamischer Portbereich\n---\nStartport       : 10000\n"
                + "Anzahl der Ports : 55535\n")).contains(new DynamicPortRange(10000, 55535));
    }

    @Test
    void anAnswerWithoutTwoPlausibleNumbersIsUnknown() {
        assertThat(DynamicPortRange.parse("The requested operation requires elevation.")).isEqualTo(Optional.empty());
        assertThat(DynamicPortRange.parse("Start Port : 60000\nNumber of Ports : 16384\n")).isEmpty();
        assertThat(DynamicPortRange.parse(null)).isEmpty();
    }
}
