package io.winproxy.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FeatureGatesTest {

    @Test
    void windowsGatesAreOnByDefault() {
        FeatureGates gates = FeatureGates.defaults();
        assertThat(gates.enabled("WinDSR")).isTrue();
        assertThat(gates.enabled("WinOverlay")).isTrue();
        assertThat(gates.enabled("IPv6DualStack")).isTrue();
        assertThat(gates.explicit()).isEmpty();
    }

    @Test
    void theLaunchersGateListParses() {
        FeatureGates gates = FeatureGates.parse("WinDSR=true,WinOverlay=true,IPv6DualStack=true");
        assertThat(gates.explicit()).containsExactly(
                Map.entry("IPv6DualStack", true), Map.entry("WinDSR", true), Map.entry("WinOverlay", true));
    }

    @ParameterizedTest(name = "[{0}] turns WinDSR off")
    @ValueSource(strings = {"WinDSR=false", "\"WinDSR=false\"", "'WinDSR=false'", " WinDSR = false ",
            "WinDSR=false,", "WinDSR=0", "WinDSR=F", "WinDSR=FALSE"})
    void quotedSpacedAndGoStyleValuesAreAccepted(String text) {
        assertThat(FeatureGates.parse(text).enabled("WinDSR")).isFalse();
    }

    @Test
    void anUnknownGateIsRejectedAsKubeProxyDoes() {
        assertThatThrownBy(() -> FeatureGates.parse("WinDSR=true,Foo=true"))
                .hasMessage("unrecognized feature gate: Foo");
    }

    @Test
    void gaGatesOfOlderReleasesAreAcceptedForOldLaunchers() {
        FeatureGates gates = FeatureGates.parse("EndpointSliceProxying=true,WindowsEndpointSliceProxying=true");
        assertThat(gates.enabled("WindowsEndpointSliceProxying")).isTrue();
        assertThat(gates.warnings()).hasSize(2);
    }

    @Test
    void aGateWithoutAValueIsRejected() {
        assertThatThrownBy(() -> FeatureGates.parse("WinDSR")).hasMessage("missing bool value for WinDSR");
    }

    @Test
    void aNonBooleanValueIsRejectedNamingTheGate() {
        assertThatThrownBy(() -> FeatureGates.parse("WinDSR=maybe"))
                .hasMessageStartingWith("invalid value of WinDSR=maybe, err: strconv.ParseBool");
    }

    @Test
    void aLockedGaGateCannotBeTurnedOff() {
        assertThatThrownBy(() -> FeatureGates.parse("IPv6DualStack=false"))
                .hasMessage("cannot set feature gate IPv6DualStack to false, feature is locked to true");
    }

    @Test
    void settingAGaGateIsAllowedWithAWarning() {
        assertThat(FeatureGates.parse("IPv6DualStack=true").warnings())
                .containsExactly("Setting GA feature gate IPv6DualStack=true. It will be removed in a future release.");
        assertThat(FeatureGates.parse("WinDSR=true").warnings()).isEmpty();
    }

    @Test
    void allBetaSetsTheBetaGatesThatWereNotSetExplicitly() {
        FeatureGates gates = FeatureGates.parse("AllBeta=false");
        assertThat(gates.enabled("WinDSR")).isFalse();
        assertThat(gates.enabled("WinOverlay")).isFalse();
        assertThat(gates.enabled("NFTablesProxyMode")).as("a GA gate").isTrue();
        assertThat(FeatureGates.parse("AllBeta=false,WinDSR=true").enabled("WinDSR")).isTrue();
    }

    @Test
    void topologyAwareHintsIsLockedOnAsInV133() {
        assertThat(FeatureGates.parse("TopologyAwareHints=true").enabled("TopologyAwareHints")).isTrue();
        assertThatThrownBy(() -> FeatureGates.parse("TopologyAwareHints=false"))
                .hasMessage("cannot set feature gate TopologyAwareHints to false, feature is locked to true");
    }

    @Test
    void aGoIdentifierCopiedFromKubernetesGateListsIsRefusedNamingTheGate() {
        assertThatThrownBy(() -> FeatureGates.parse("RuntimeClassInImageCriAPI=true"))
                .hasMessage("unrecognized feature gate: RuntimeClassInImageCriAPI (that is the gate's Go identifier;"
                        + " its name is RuntimeClassInImageCriApi)");
        assertThatThrownBy(() -> FeatureGates.parse("CPUCFSQuotaPeriod=true"))
                .hasMessageContaining("its name is CustomCPUCFSQuotaPeriod");
        assertThat(FeatureGates.parse("RuntimeClassInImageCriApi=true,CustomCPUCFSQuotaPeriod=true").explicit())
                .hasSize(2);
    }

    @Test
    void repeatedFlagsMergeWithTheLaterValueWinning() {
        FeatureGates merged = FeatureGates.parse("WinDSR=true,WinOverlay=true").merge(FeatureGates.parse("WinDSR=false"));
        assertThat(merged.enabled("WinDSR")).isFalse();
        assertThat(merged.enabled("WinOverlay")).isTrue();
        assertThat(merged.toFlagValue()).isEqualTo("WinDSR=false,WinOverlay=true");
    }

    @Test
    void gatesAreEqualWhenTheSameGatesAreSet() {
        assertThat(FeatureGates.parse("WinOverlay=true,WinDSR=false"))
                .isEqualTo(FeatureGates.of(Map.of("WinDSR", false, "WinOverlay", true)));
    }

    @Test
    void askingForAnUnknownGateIsAProgrammingError() {
        assertThatThrownBy(() -> FeatureGates.defaults().enabled("Nope"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void effectiveListsEveryKnownGate() {
        assertThat(FeatureGates.parse("WinDSR=false").effective())
                .containsEntry("WinDSR", false)
                .containsEntry("WinOverlay", true)
                .hasSize(FeatureGates.KNOWN.size());
    }

    /** The gates an AKS or EKS Windows node's kubelet configuration sets, passed unchanged by launchers. */
    private static final String CLUSTER_WIDE_GATES = "RotateKubeletServerCertificate=true,ExecProbeTimeout=true,"
            + "SidecarContainers=true,WinDSR=true,WinOverlay=true,DisableKubeletCloudCredentialProviders=true,"
            + "CSIMigrationPortworx=true";

    @Test
    void aClusterWideGateListIsAcceptedAndOnlyTheWindowsGatesAct() {
        FeatureGates gates = FeatureGates.parse(CLUSTER_WIDE_GATES);
        assertThat(gates.enabled("WinDSR")).isTrue();
        assertThat(gates.explicit()).containsEntry("SidecarContainers", true).hasSize(7);
        assertThat(gates.withoutEffect()).containsExactly(
                "feature gate CSIMigrationPortworx=true (GA in Kubernetes v1.33) is accepted and has no effect in"
                        + " winproxy",
                "feature gate ExecProbeTimeout=true (GA in Kubernetes v1.33) is accepted and has no effect in"
                        + " winproxy",
                "feature gate RotateKubeletServerCertificate=true (BETA in Kubernetes v1.33) is accepted and has no"
                        + " effect in winproxy",
                "feature gate SidecarContainers=true (GA in Kubernetes v1.33) is accepted and has no effect in"
                        + " winproxy");
        assertThat(gates.warnings()).containsExactly("feature gate DisableKubeletCloudCredentialProviders=true is not"
                + " a gate of Kubernetes v1.33 (an earlier release removed it); accepted with no effect");
        assertThat(gates.toFlagValue()).contains("SidecarContainers=true");
    }

    @Test
    void aLockedKubernetesGateIsAcceptedAtItsLockedValueAndRefusedAtTheOpposite() {
        assertThat(FeatureGates.parse("SidecarContainers=true").explicit()).containsKey("SidecarContainers");
        assertThatThrownBy(() -> FeatureGates.parse("SidecarContainers=false"))
                .hasMessage("cannot set feature gate SidecarContainers to false, feature is locked to true");
        assertThatThrownBy(() -> FeatureGates.parse("AppArmor=false"))
                .hasMessage("cannot set feature gate AppArmor to false, feature is locked to true");
    }

    @Test
    void anUnlockedKubernetesGateTakesEitherValue() {
        assertThat(FeatureGates.parse("RotateKubeletServerCertificate=false,ContextualLogging=false").explicit())
                .hasSize(2);
    }

    @Test
    void aGateAddedAfterTheMatchedReleaseIsAcceptedWithAWarning() {
        assertThat(FeatureGates.parse("EnvFiles=true").warnings()).containsExactly(
                "feature gate EnvFiles=true is newer than Kubernetes v1.33; accepted with no effect");
    }

    @Test
    void gateNamesAreCaseSensitiveAsInKubernetesAndTheRefusalSuggestsTheSpelling() {
        assertThatThrownBy(() -> FeatureGates.parse("windsr=true")).hasMessage(
                "unrecognized feature gate: windsr (gate names are case-sensitive: did you mean WinDSR?)");
        assertThatThrownBy(() -> FeatureGates.parse("sidecarContainers=true")).hasMessage("unrecognized feature"
                + " gate: sidecarContainers (gate names are case-sensitive: did you mean SidecarContainers?)");
    }
}
