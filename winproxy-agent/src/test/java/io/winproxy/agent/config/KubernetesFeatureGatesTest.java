package io.winproxy.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.agent.cli.VersionCommand;
import java.io.BufferedReader;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

class KubernetesFeatureGatesTest {

    private final KubernetesFeatureGates gates = KubernetesFeatureGates.bundled();

    @Test
    void theBundledListIsForTheKubernetesReleaseWinproxyMatches() {
        assertThat(VersionCommand.KUBERNETES_VERSION).startsWith(FeatureGates.KUBERNETES_RELEASE + ".");
    }

    @Test
    void theBundledListHoldsEveryKindOfGate() {
        assertThat(gates.all()).hasSizeGreaterThan(200);
        assertThat(gates.find("SidecarContainers")).hasValueSatisfying(g -> {
            assertThat(g.release()).isEqualTo(KubernetesFeatureGates.Release.V1_33);
            assertThat(g.stage()).isEqualTo(FeatureGates.Stage.GA);
            assertThat(g.locked()).isTrue();
        });
        assertThat(gates.find("RotateKubeletServerCertificate")).map(KubernetesFeatureGates.Gate::stage)
                .hasValue(FeatureGates.Stage.BETA);
        assertThat(gates.find("AppArmor")).map(KubernetesFeatureGates.Gate::release)
                .hasValue(KubernetesFeatureGates.Release.OLDER);
        assertThat(gates.find("EnvFiles")).map(KubernetesFeatureGates.Gate::release)
                .hasValue(KubernetesFeatureGates.Release.NEWER);
        assertThat(gates.find("ContextualLogging")).isPresent();
    }

    @Test
    void theGatesWinproxyActsOnAreNotRepeatedInTheList() {
        assertThat(gates.all().keySet()).doesNotContainAnyElementsOf(FeatureGates.KNOWN.keySet());
    }

    @Test
    void namesAreCaseSensitiveButTheSpellingCanBeLookedUp() {
        assertThat(gates.find("sidecarcontainers")).isEmpty();
        assertThat(gates.spellingOf("sidecarcontainers")).hasValue("SidecarContainers");
        assertThat(gates.spellingOf("NoSuchGate")).isEmpty();
    }

    @Test
    void aMalformedLineIsReportedWithItsNumber() {
        assertThatThrownBy(() -> KubernetesFeatureGates.parse(new BufferedReader(new StringReader(
                "# comment\nA v1.33 BETA true false\nB v1.33 BETA yes false\n"))))
                .hasMessage("kubernetes-feature-gates.txt:3: want true or false, got yes");
        assertThatThrownBy(() -> KubernetesFeatureGates.parse(new BufferedReader(new StringReader(
                "A v1.33 BETA true false\nA older GA true true\n"))))
                .hasMessage("kubernetes-feature-gates.txt:2: repeated gate A");
    }
}
