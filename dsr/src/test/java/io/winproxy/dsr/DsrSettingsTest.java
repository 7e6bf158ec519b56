package io.winproxy.dsr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DsrSettingsTest {

    @Test
    void enableDsrWithTheGateOnAndHnsSupportEnablesDsr() {
        DsrSettings settings = DsrSettings.resolve(true, true, true, "15.4");
        assertThat(settings.enabled()).isTrue();
        assertThat(settings.hnsSupportsDsr()).isTrue();
    }

    @Test
    void enableDsrWithTheWinDsrGateOffIsAOneLineErrorNamingTheGate() {
        assertThatThrownBy(() -> DsrSettings.resolve(true, false, true, "15.4"))
                .isInstanceOf(DsrConfigurationException.class)
                .hasMessageContaining("--enable-dsr").hasMessageContaining("WinDSR=false")
                .hasMessageNotContaining("\n");
    }

    @Test
    void enableDsrOnAnHnsWithoutDsrIsAnErrorNamingTheHnsVersion() {
        assertThatThrownBy(() -> DsrSettings.resolve(true, true, false, "10.1"))
                .isInstanceOf(DsrConfigurationException.class)
                .hasMessageContaining("--enable-dsr").hasMessageContaining("HNS version 10.1")
                .hasMessageNotContaining("\n");
    }

    @Test
    void notAskingForDsrIsValidWhateverTheGateAndHnsSay() {
        assertThat(DsrSettings.resolve(false, false, false, "9.2").enabled()).isFalse();
        assertThat(DsrSettings.resolve(false, true, true, "15.4"))
                .isEqualTo(new DsrSettings(false, true));
    }
}
