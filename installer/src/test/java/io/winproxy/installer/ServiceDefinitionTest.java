package io.winproxy.installer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServiceDefinitionTest {

    @Test
    void theDisplayNameDefaultsToTheName() {
        ServiceDefinition d = new ServiceDefinition("kubeproxy", " ", null, "java.exe", StartType.AUTOMATIC,
                List.of(), RecoveryActions.DEFAULTS);
        assertThat(d.displayName()).isEqualTo("kubeproxy");
        assertThat(d.description()).isEmpty();
    }

    @Test
    void invalidNamesAndEmptyCommandLinesAreRejectedNamingTheOption() {
        assertThatThrownBy(() -> new ServiceDefinition("", "x", "", "java.exe", StartType.AUTOMATIC, List.of(),
                RecoveryActions.DEFAULTS)).hasMessageStartingWith("--name:");
        assertThatThrownBy(() -> new ServiceDefinition("kube\\proxy", "x", "", "java.exe", StartType.AUTOMATIC,
                List.of(), RecoveryActions.DEFAULTS)).hasMessageStartingWith("--name:");
        assertThatThrownBy(() -> new ServiceDefinition("kube-proxy", "x", "", " ", StartType.AUTOMATIC, List.of(),
                RecoveryActions.DEFAULTS)).hasMessageContaining("after --");
        assertThatThrownBy(() -> new ServiceDefinition("kube-proxy", "x", "", "java.exe", StartType.AUTOMATIC,
                List.of(""), RecoveryActions.DEFAULTS)).hasMessageStartingWith("--depends-on:");
    }

    @Test
    void recoveryActionsNeedADelayAndConvertToWin32Units() {
        assertThat(RecoveryActions.DEFAULTS.restartDelaysMillis()).containsExactly(10_000, 30_000, 60_000);
        assertThat(RecoveryActions.DEFAULTS.resetPeriodSeconds()).isEqualTo(900);
        assertThat(RecoveryActions.DEFAULTS.onNonCrashFailures()).isTrue();
        assertThatThrownBy(() -> new RecoveryActions(List.of(), Duration.ZERO, true))
                .hasMessageStartingWith("--restart-delays:");
        assertThatThrownBy(() -> new RecoveryActions(List.of(Duration.ofSeconds(-1)), Duration.ZERO, true))
                .hasMessageStartingWith("--restart-delays:");
    }

    @Test
    void startTypesParseAsTheInstallScriptNamesThem() {
        assertThat(StartType.parse("Automatic")).isEqualTo(StartType.AUTOMATIC);
        assertThat(StartType.parse("delayed")).isEqualTo(StartType.AUTOMATIC_DELAYED);
        assertThat(StartType.parse("delayed-auto")).isEqualTo(StartType.AUTOMATIC_DELAYED);
        assertThat(StartType.parse("manual").win32()).isEqualTo(3);
        assertThat(StartType.AUTOMATIC_DELAYED.win32()).isEqualTo(2);
        assertThatThrownBy(() -> StartType.parse("boot")).hasMessageStartingWith("invalid --start-type \"boot\"");
    }
}
