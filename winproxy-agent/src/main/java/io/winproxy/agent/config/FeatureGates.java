package io.winproxy.agent.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The feature gates kube-proxy on Windows knows, with the values given by {@code --feature-gates} or
 * {@code featureGates:}. Immutable value; equal when the same gates were set to the same values.
 *
 * <p>Known gates are those of {@link #KNOWN}. Setting an unknown gate fails with kube-proxy's message
 * {@code unrecognized feature gate: Foo}; setting a locked (GA) gate to the opposite of its locked value fails with
 * {@code cannot set feature gate X to false, feature is locked to true}. Setting a GA or deprecated gate is allowed
 * and reported by {@link #warnings()}, as kube-proxy logs it.
 *
 * @param explicit the gates that were set, by name (never contains an unknown gate)
 */
public record FeatureGates(Map<String, Boolean> explicit) {

    /** Lifecycle stage of a gate, as in Kubernetes' {@code featuregate} package. */
    public enum Stage { ALPHA, BETA, GA, DEPRECATED }

    /** One known gate: its default and whether it is locked to that default. */
    public record Spec(String name, boolean defaultValue, Stage stage, boolean locked) {
    }

    /**
     * Every gate winproxy accepts. The Windows gates ({@code WinDSR}, {@code WinOverlay}), {@code IPv6DualStack}
     * (GA, still passed by old AKS launchers), the gates of the common proxy code, and GA proxy gates removed by
     * later releases (accepted set to true, as older launchers pass them). Defaults follow the newest kube-proxy
     * releases (WinDSR beta and on since 1.33).
     */
    public static final Map<String, Spec> KNOWN = index(List.of(
            new Spec("WinDSR", true, Stage.BETA, false),
            new Spec("WinOverlay", true, Stage.BETA, false),
            new Spec("IPv6DualStack", true, Stage.GA, true),
            new Spec("KubeProxyDrainingTerminatingNodes", true, Stage.GA, true),
            new Spec("ProxyTerminatingEndpoints", true, Stage.GA, true),
            new Spec("TopologyAwareHints", true, Stage.BETA, false),
            new Spec("ServiceTrafficDistribution", true, Stage.GA, true),
            new Spec("PreferSameTrafficDistribution", true, Stage.BETA, false),
            new Spec("MultiCIDRServiceAllocator", true, Stage.GA, false),
            new Spec("LoadBalancerIPMode", true, Stage.GA, true),
            new Spec("WindowsHostNetwork", true, Stage.ALPHA, false),
            new Spec("NFTablesProxyMode", true, Stage.GA, true),
            // GA proxy gates that later releases removed; old launchers still pass them set to true.
            new Spec("EndpointSlice", true, Stage.GA, true),
            new Spec("EndpointSliceProxying", true, Stage.GA, true),
            new Spec("WindowsEndpointSliceProxying", true, Stage.GA, true),
            new Spec("EndpointSliceTerminatingCondition", true, Stage.GA, true),
            new Spec("ServiceInternalTrafficPolicy", true, Stage.GA, true),
            new Spec("MinimizeIPTablesRestore", true, Stage.GA, true),
            new Spec("AllAlpha", false, Stage.ALPHA, false),
            new Spec("AllBeta", false, Stage.BETA, false)));

    public FeatureGates {
        explicit = Collections.unmodifiableMap(new TreeMap<>(explicit));
    }

    /** No gate set: every gate has its default. */
    public static FeatureGates defaults() {
        return new FeatureGates(Map.of());
    }

    /**
     * Validated gates from a map, as {@code featureGates:} in the file or the parsed flag.
     *
     * @throws IllegalArgumentException naming the first unknown or locked gate
     */
    public static FeatureGates of(Map<String, Boolean> values) {
        for (Map.Entry<String, Boolean> e : values.entrySet()) {
            Spec spec = KNOWN.get(e.getKey());
            if (spec == null) {
                throw new IllegalArgumentException("unrecognized feature gate: " + e.getKey());
            }
            if (spec.locked() && e.getValue() != spec.defaultValue()) {
                throw new IllegalArgumentException("cannot set feature gate " + e.getKey() + " to " + e.getValue()
                        + ", feature is locked to " + spec.defaultValue());
            }
        }
        return new FeatureGates(values);
    }

    /**
     * Parses the {@code --feature-gates} syntax: {@code A=true,B=false}. Surrounding quotes (as some Windows
     * launchers pass them) and blanks around names and values are ignored; values use Go's boolean syntax.
     *
     * @throws IllegalArgumentException with kube-proxy's wording for a missing or non-boolean value, an unknown
     *                                  or a locked gate
     */
    public static FeatureGates parse(String text) {
        String s = text.trim();
        if (s.length() >= 2 && (s.startsWith("\"") && s.endsWith("\"") || s.startsWith("'") && s.endsWith("'"))) {
            s = s.substring(1, s.length() - 1);
        }
        Map<String, Boolean> values = new LinkedHashMap<>();
        for (String part : s.split(",", -1)) {
            if (part.isBlank()) {
                continue;
            }
            String[] kv = part.split("=", 2);
            String key = kv[0].trim();
            if (kv.length != 2) {
                throw new IllegalArgumentException("missing bool value for " + key);
            }
            String value = kv[1].trim();
            try {
                values.put(key, FlagValues.parseBool(value));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid value of " + key + "=" + value + ", err: " + e.getMessage());
            }
        }
        return of(values);
    }

    /** This set with {@code later}'s gates applied on top (repeated {@code --feature-gates} flags merge). */
    public FeatureGates merge(FeatureGates later) {
        Map<String, Boolean> merged = new LinkedHashMap<>(explicit);
        merged.putAll(later.explicit);
        return new FeatureGates(merged);
    }

    /**
     * Whether a gate is on: its explicit value, else {@code AllAlpha}/{@code AllBeta} for alpha/beta gates, else
     * its default.
     *
     * @throws IllegalArgumentException for a gate not in {@link #KNOWN} (a programming error)
     */
    public boolean enabled(String gate) {
        Spec spec = KNOWN.get(gate);
        if (spec == null) {
            throw new IllegalArgumentException("unrecognized feature gate: " + gate);
        }
        Boolean value = explicit.get(gate);
        if (value != null) {
            return value;
        }
        if (spec.stage() == Stage.ALPHA && !gate.equals("AllAlpha") && explicit.containsKey("AllAlpha")) {
            return explicit.get("AllAlpha");
        }
        if (spec.stage() == Stage.BETA && !gate.equals("AllBeta") && explicit.containsKey("AllBeta")) {
            return explicit.get("AllBeta");
        }
        return spec.defaultValue();
    }

    /** Every known gate with its effective value, sorted by name (for logs and the metrics of enabled features). */
    public Map<String, Boolean> effective() {
        Map<String, Boolean> all = new TreeMap<>();
        KNOWN.keySet().forEach(name -> all.put(name, enabled(name)));
        return Collections.unmodifiableMap(all);
    }

    /** The one-line warnings kube-proxy logs for the gates that were set: GA and deprecated gates. */
    public List<String> warnings() {
        List<String> out = new ArrayList<>();
        explicit.forEach((name, value) -> {
            Stage stage = KNOWN.get(name).stage();
            if (stage == Stage.GA) {
                out.add("Setting GA feature gate " + name + "=" + value + ". It will be removed in a future release.");
            } else if (stage == Stage.DEPRECATED) {
                out.add("Setting deprecated feature gate " + name + "=" + value
                        + ". It will be removed in a future release.");
            }
        });
        return out;
    }

    /** The {@code --feature-gates} text of the explicit gates ({@code A=true,B=false}), sorted by name. */
    public String toFlagValue() {
        StringBuilder out = new StringBuilder();
        explicit.forEach((k, v) -> out.append(out.length() == 0 ? "" : ",").append(k).append('=').append(v));
        return out.toString();
    }

    private static Map<String, Spec> index(List<Spec> specs) {
        Map<String, Spec> map = new LinkedHashMap<>();
        specs.forEach(s -> map.put(s.name(), s));
        return Collections.unmodifiableMap(map);
    }
}
