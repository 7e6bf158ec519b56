package io.winproxy.agent.config;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The Kubernetes feature gates winproxy accepts without acting on them, read from the bundled data file
 * {@value #RESOURCE}: every gate kube-proxy {@code v1.33} registers (it accepts all of them, whatever component they
 * are for), plus the gates of the adjacent releases, so that a cluster-wide gate list written for an older or newer
 * release does not crash-loop the service. Immutable; thread-safe.
 */
public final class KubernetesFeatureGates {

    /** The data file, on the class path next to this class. */
    public static final String RESOURCE = "kubernetes-feature-gates.txt";

    /** Which release registers a gate. */
    public enum Release {
        /** Registered by kube-proxy v1.33, the release winproxy matches. */
        V1_33,
        /** Registered by an earlier release (v1.31/v1.32) and removed from, or on its way out of, v1.33. */
        OLDER,
        /** Added by a later release (v1.34 or newer). */
        NEWER
    }

    /** One gate: its release, and its stage, default and lock as of that release. */
    public record Gate(String name, Release release, FeatureGates.Stage stage, boolean defaultValue,
                       boolean locked) {
    }

    private static final KubernetesFeatureGates BUNDLED = load();

    private final Map<String, Gate> byName;
    private final Map<String, String> byLowerCaseName;

    private KubernetesFeatureGates(Map<String, Gate> byName) {
        this.byName = Collections.unmodifiableMap(byName);
        Map<String, String> lower = new LinkedHashMap<>();
        byName.keySet().forEach(n -> lower.put(n.toLowerCase(Locale.ROOT), n));
        this.byLowerCaseName = Collections.unmodifiableMap(lower);
    }

    /** The gates of the bundled data file. */
    public static KubernetesFeatureGates bundled() {
        return BUNDLED;
    }

    /** The gate of exactly this name (gate names are case-sensitive, as in Kubernetes). */
    public Optional<Gate> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** The properly spelled name of a gate whose name differs only in case, e.g. {@code SidecarContainers}. */
    public Optional<String> spellingOf(String name) {
        return Optional.ofNullable(byLowerCaseName.get(name.toLowerCase(Locale.ROOT)));
    }

    /** Every gate by name, in file order. */
    public Map<String, Gate> all() {
        return byName;
    }

    /**
     * Parses the data format: one gate a line, {@code NAME RELEASE STAGE DEFAULT LOCKED}, {@code #} comments.
     *
     * @throws IllegalArgumentException naming the line of a malformed or repeated entry
     */
    static KubernetesFeatureGates parse(BufferedReader reader) throws IOException {
        Map<String, Gate> gates = new LinkedHashMap<>();
        String line;
        int number = 0;
        while ((line = reader.readLine()) != null) {
            number++;
            String text = line.strip();
            if (text.isEmpty() || text.startsWith("#")) {
                continue;
            }
            String[] f = text.split("\\s+");
            if (f.length != 5) {
                throw new IllegalArgumentException(RESOURCE + ":" + number + ": want 5 fields, got " + f.length);
            }
            Release release = switch (f[1]) {
                case "v1.33" -> Release.V1_33;
                case "older" -> Release.OLDER;
                case "newer" -> Release.NEWER;
                default -> throw new IllegalArgumentException(RESOURCE + ":" + number + ": bad release " + f[1]);
            };
            Gate gate = new Gate(f[0], release, FeatureGates.Stage.valueOf(f[2]), bool(f[3], number),
                    bool(f[4], number));
            if (gates.put(gate.name(), gate) != null) {
                throw new IllegalArgumentException(RESOURCE + ":" + number + ": repeated gate " + gate.name());
            }
        }
        return new KubernetesFeatureGates(gates);
    }

    private static boolean bool(String text, int line) {
        if (!text.equals("true") && !text.equals("false")) {
            throw new IllegalArgumentException(RESOURCE + ":" + line + ": want true or false, got " + text);
        }
        return text.equals("true");
    }

    private static KubernetesFeatureGates load() {
        try (InputStream in = KubernetesFeatureGates.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the class path");
            }
            return parse(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
