package io.winproxy.dsr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DsrSettingsTest {

    @Test
    void enableDsrWithTheGateOnAndHnsSupportEnablesDsr() {
        DsrSettings settings = DsrSettings.resolve(true, true, true, "15.4");
        assertThat(settings.enabled()).isTrue();
        assertThat(settings.hnsSupportsDsr()).isTrue();
    }

    /** --enable-dsr refused: with the WinDSR gate off (naming the gate), on an HNS without DSR (naming its version). */
    @ParameterizedTest(name = "gate={0} hnsSupportsDsr={1} hns={2}")
    @CsvSource({"false, true, 15.4, WinDSR=false", "true, false, 10.1, HNS version 10.1"})
    void enableDsrThatCannotWorkIsAOneLineErrorSayingWhy(boolean gate, boolean hnsSupportsDsr, String hnsVersion,
                                                          String reason) {
        assertThatThrownBy(() -> DsrSettings.resolve(true, gate, hnsSupportsDsr, hnsVersion))
                .isInstanceOf(DsrConfigurationException.class)
                .hasMessageContaining("--enable-dsr").hasMessageContaining(reason)
                .hasMessageNotContaining("\n");
    }

    @Test
    void notAskingForDsrIsValidWhateverTheGateAndHnsSay() {
        assertThat(DsrSettings.resolve(false, false, false, "9.2").enabled()).isFalse();
        assertThat(DsrSettings.resolve(false, true, true, "15.4"))
                .isEqualTo(new DsrSettings(false, true));
    }
}
