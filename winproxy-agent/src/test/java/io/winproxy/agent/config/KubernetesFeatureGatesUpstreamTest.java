package io.winproxy.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * winproxy's gate table against Kubernetes' own lifecycle data ({@code versioned-feature-list.txt}, transcribed from
 * kubernetes/kubernetes {@code test/compatibility_lifecycle/reference/versioned_feature_list.yaml}): every gate of
 * v1.33 accepted with v1.33's stage, default and lock, so a misspelt or mis-staged row fails the build.
 */
class KubernetesFeatureGatesUpstreamTest {
    private static final int[] RELEASE = {1, 33};
    /** Deliberate, documented differences from v1.33 in {@link FeatureGates#KNOWN} (see its comment). */
    private static final Set<String> DELIBERATE = Set.of("PreferSameTrafficDistribution");

    /** One gate's state in a release. */
    record State(FeatureGates.Stage stage, boolean defaultValue, boolean locked) {
    }

    private static final Map<String, Optional<State>> UPSTREAM = new LinkedHashMap<>();
    private static final Map<String, String> SPELT = new HashMap<>();
    private static final Set<String> AFTER_RELEASE = new HashSet<>();

    @BeforeAll
    static void readFixture() throws IOException {
        try (InputStream in = KubernetesFeatureGatesUpstreamTest.class.getResourceAsStream("versioned-feature-list.txt")) {
            assertThat(in).as("fixture on the class path").isNotNull();
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                String[] f = line.strip().split("\\s+");
                if (line.isBlank() || f[0].startsWith("#")) {
                    continue;
                }
                if (f[0].equals("!spelt")) {
                    SPELT.put(f[1], f[2]);
                } else if (f[0].equals("!after-v1.33")) {
                    AFTER_RELEASE.add(f[1]);
                } else {
                    UPSTREAM.put(f[0], stateIn(f));
                }
            }
        }
    }

    /** The last spec whose version is at most {@link #RELEASE}, or empty when the gate is newer. */
    private static Optional<State> stateIn(String[] fields) {
        State state = null;
        for (int i = 1; i < fields.length; i++) {
            String[] spec = fields[i].split("/");
            String[] version = spec[0].split("\\.");
            int major = Integer.parseInt(version[0]);
            int minor = Integer.parseInt(version[1]);
            if (major < RELEASE[0] || major == RELEASE[0] && minor <= RELEASE[1]) {
                state = new State(FeatureGates.Stage.valueOf(spec[1].toUpperCase(Locale.ROOT)),
                        Boolean.parseBoolean(spec[2]), Boolean.parseBoolean(spec[3]));
            }
        }
        return Optional.ofNullable(state);
    }

    private static String name(String goIdentifier) {
        return SPELT.getOrDefault(goIdentifier, goIdentifier);
    }

    @Test
    void theFixtureIsWhole() {
        assertThat(UPSTREAM.size()).isGreaterThan(180);
        assertThat(UPSTREAM.keySet()).contains("WinDSR", "WinOverlay", "TopologyAwareHints");
    }

    @Test
    void everyV133GateIsInTheTableWithV133sStageDefaultAndLock() {
        List<String> wrong = new ArrayList<>();
        UPSTREAM.forEach((identifier, state) -> {
            if (state.isEmpty() || AFTER_RELEASE.contains(identifier) || DELIBERATE.contains(identifier)) {
                return;
            }
            String name = name(identifier);
            State want = state.get();
            State have;
            FeatureGates.Spec known = FeatureGates.KNOWN.get(name);
            Optional<KubernetesFeatureGates.Gate> gate = KubernetesFeatureGates.bundled().find(name);
            if (known != null) {
                have = new State(known.stage(), known.defaultValue(), known.locked());
            } else if (gate.isPresent() && gate.get().release() == KubernetesFeatureGates.Release.V1_33) {
                have = new State(gate.get().stage(), gate.get().defaultValue(), gate.get().locked());
            } else {
                wrong.add(name + ": not a v1.33 gate in winproxy's table (" + gate.map(g -> g.release().toString())
                        .orElse("missing") + ")");
                return;
            }
            if (!have.equals(want)) {
                wrong.add(name + ": winproxy " + have + ", Kubernetes v1.33 " + want);
            }
        });
        assertThat(wrong).isEmpty();
    }

    @Test
    void everyV133GateIsAcceptedAndEveryLockIsEnforcedAsKubeProxyDoes() {
        UPSTREAM.forEach((identifier, state) -> {
            if (state.isEmpty() || AFTER_RELEASE.contains(identifier)) {
                return;
            }
            String name = name(identifier);
            State want = state.get();
            assertThat(FeatureGates.of(Map.of(name, want.defaultValue())).explicit()).as(name).containsKey(name);
            if (want.locked() && !DELIBERATE.contains(identifier)) {
                assertThatThrownBy(() -> FeatureGates.of(Map.of(name, !want.defaultValue()))).as(name)
                        .hasMessage("cannot set feature gate " + name + " to " + !want.defaultValue()
                                + ", feature is locked to " + want.defaultValue());
            } else {
                assertThat(FeatureGates.of(Map.of(name, !want.defaultValue())).explicit()).as(name).containsKey(name);
            }
        });
    }

    @Test
    void gatesAddedAfterV133AreNotClaimedAsV133Gates() {
        UPSTREAM.forEach((identifier, state) -> {
            if (state.isPresent() && !AFTER_RELEASE.contains(identifier)) {
                return;
            }
            String name = name(identifier);
            assertThat(KubernetesFeatureGates.bundled().find(name).map(KubernetesFeatureGates.Gate::release))
                    .as(name).isNotEqualTo(Optional.of(KubernetesFeatureGates.Release.V1_33));
            assertThat(FeatureGates.KNOWN).as(name).doesNotContainKey(name);
        });
    }
}
