package io.winproxy.agent.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The feature gates given by {@code --feature-gates} or {@code featureGates:}. Immutable value; equal when the same
 * gates were set to the same values.
 *
 * <p>Like kube-proxy, winproxy accepts every Kubernetes gate, so that a cluster-wide gate list (the one a kubelet
 * configuration sets) can be passed unchanged:
 * <ul>
 *   <li>The gates of {@link #KNOWN} act. Setting a GA or deprecated one is reported by {@link #warnings()}, as
 *       kube-proxy logs it.</li>
 *   <li>Every other gate of Kubernetes v1.33 ({@link KubernetesFeatureGates}) is accepted with no effect and
 *       reported by {@link #withoutEffect()} (one debug line each).</li>
 *   <li>A gate only an adjacent release knows (removed shortly before v1.33, or added after it) is accepted with no
 *       effect and one warning, instead of kube-proxy's refusal, so that a list written for another release does
 *       not crash-loop the service.</li>
 *   <li>A locked gate (of any of the above) set to the opposite of its locked value fails with kube-proxy's
 *       {@code cannot set feature gate X to false, feature is locked to true}.</li>
 *   <li>Any other name fails with kube-proxy's {@code unrecognized feature gate: Foo}. Names are case-sensitive,
 *       as in Kubernetes; a name that differs from a gate's only in case gets the right spelling as a hint.</li>
 * </ul>
 *
 * @param explicit the gates that were set, by name (never contains an unrecognized gate)
 */
public record FeatureGates(Map<String, Boolean> explicit) {

    /** The Kubernetes release whose gates {@link KubernetesFeatureGates} lists. */
    static final String KUBERNETES_RELEASE = "v1.33";

    /** Lifecycle stage of a gate, as in Kubernetes' {@code featuregate} package. */
    public enum Stage { ALPHA, BETA, GA, DEPRECATED }

    /** One known gate: its default and whether it is locked to that default. */
    public record Spec(String name, boolean defaultValue, Stage stage, boolean locked) {
    }

    /**
     * Every gate winproxy accepts. The Windows gates ({@code WinDSR}, {@code WinOverlay}), {@code IPv6DualStack}
     * (GA, still passed by old AKS launchers), the gates of the common proxy code, and GA proxy gates removed by
     * later releases (accepted set to true, as older launchers pass them). Stage, default and lock are Kubernetes
     * v1.33's (checked against upstream's data by KubernetesFeatureGatesUpstreamTest), with one deliberate
     * exception: {@code PreferSameTrafficDistribution} is on by default, as from v1.34 (alpha and off in v1.33), so
     * that {@code trafficDistribution: PreferSameNode} works without a gate (docs/policy.md).
     */
    public static final Map<String, Spec> KNOWN = index(List.of(
            new Spec("WinDSR", true, Stage.BETA, false),
            new Spec("WinOverlay", true, Stage.BETA, false),
            new Spec("IPv6DualStack", true, Stage.GA, true),
            new Spec("KubeProxyDrainingTerminatingNodes", true, Stage.GA, true),
            new Spec("ProxyTerminatingEndpoints", true, Stage.GA, true),
            new Spec("TopologyAwareHints", true, Stage.GA, true),
            new Spec("ServiceTrafficDistribution", true, Stage.GA, true),
            new Spec("PreferSameTrafficDistribution", true, Stage.BETA, false),
            new Spec("MultiCIDRServiceAllocator", true, Stage.GA, false),
            new Spec("LoadBalancerIPMode", true, Stage.GA, true),
            new Spec("WindowsHostNetwork", false, Stage.DEPRECATED, false),
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
            String name = e.getKey();
            Spec spec = KNOWN.get(name);
            Optional<KubernetesFeatureGates.Gate> gate = KubernetesFeatureGates.bundled().find(name);
            boolean locked;
            boolean lockedValue;
            if (spec != null) {
                locked = spec.locked();
                lockedValue = spec.defaultValue();
            } else if (gate.isPresent()) {
                locked = gate.get().locked();
                lockedValue = gate.get().defaultValue();
            } else {
                throw new IllegalArgumentException("unrecognized feature gate: " + name + spellingHint(name));
            }
            if (locked && e.getValue() != lockedValue) {
                throw new IllegalArgumentException("cannot set feature gate " + name + " to " + e.getValue()
                        + ", feature is locked to " + lockedValue);
            }
        }
        return new FeatureGates(values);
    }

    /**
     * Go identifiers of gates whose name (the string kube-proxy accepts) differs: Kubernetes' generated gate lists
     * show the identifier, so operators copy it from there.
     */
    private static final Map<String, String> GO_IDENTIFIERS = Map.of(
            "CPUCFSQuotaPeriod", "CustomCPUCFSQuotaPeriod",
            "RuntimeClassInImageCriAPI", "RuntimeClassInImageCriApi");

    private static String spellingHint(String name) {
        if (GO_IDENTIFIERS.containsKey(name)) {
            return " (that is the gate's Go identifier; its name is " + GO_IDENTIFIERS.get(name) + ")";
        }
        Optional<String> known = KNOWN.keySet().stream().filter(k -> k.equalsIgnoreCase(name)).findFirst()
                .or(() -> KubernetesFeatureGates.bundled().spellingOf(name));
        return known.map(k -> " (gate names are case-sensitive: did you mean " + k + "?)").orElse("");
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
        if (gate.equals("AllAlpha") || gate.equals("AllBeta")) {
            return explicit.getOrDefault(gate, spec.defaultValue());
        }
        return value(gate, spec.stage(), spec.defaultValue());
    }

    /** One gate as {@code kubernetes_feature_enabled} reports it. */
    public record Status(String name, Stage stage, boolean enabled) {
    }

    /**
     * Every gate kube-proxy v1.33 registers and every gate winproxy acts on, with its stage and effective value
     * (explicit, else {@code AllAlpha}/{@code AllBeta} for alpha/beta gates, else the default), sorted by name: what
     * component-base's feature-gate metrics report.
     */
    public List<Status> statuses() {
        Map<String, Status> all = new TreeMap<>();
        KubernetesFeatureGates.bundled().all().values().stream()
                .filter(g -> g.release() == KubernetesFeatureGates.Release.V1_33)
                .forEach(g -> all.put(g.name(), new Status(g.name(), g.stage(), value(g.name(), g.stage(),
                        g.defaultValue()))));
        KNOWN.values().forEach(s -> all.put(s.name(), new Status(s.name(), s.stage(), enabled(s.name()))));
        return List.copyOf(all.values());
    }

    private boolean value(String gate, Stage stage, boolean defaultValue) {
        Boolean value = explicit.get(gate);
        if (value != null) {
            return value;
        }
        if (stage == Stage.ALPHA && explicit.containsKey("AllAlpha")) {
            return explicit.get("AllAlpha");
        }
        if (stage == Stage.BETA && explicit.containsKey("AllBeta")) {
            return explicit.get("AllBeta");
        }
        return defaultValue;
    }

    /** Every known gate with its effective value, sorted by name (for logs and the metrics of enabled features). */
    public Map<String, Boolean> effective() {
        Map<String, Boolean> all = new TreeMap<>();
        KNOWN.keySet().forEach(name -> all.put(name, enabled(name)));
        return Collections.unmodifiableMap(all);
    }

    /**
     * The one-line warnings for the gates that were set: kube-proxy's for GA and deprecated gates winproxy acts on,
     * and winproxy's own for gates of an adjacent Kubernetes release (accepted with no effect).
     */
    public List<String> warnings() {
        List<String> out = new ArrayList<>();
        explicit.forEach((name, value) -> {
            if (!KNOWN.containsKey(name)) {
                KubernetesFeatureGates.bundled().find(name).ifPresent(gate -> {
                    if (gate.release() == KubernetesFeatureGates.Release.OLDER) {
                        out.add("feature gate " + name + "=" + value + " is not a gate of Kubernetes "
                                + KUBERNETES_RELEASE + " (an earlier release removed it); accepted with no effect");
                    } else if (gate.release() == KubernetesFeatureGates.Release.NEWER) {
                        out.add("feature gate " + name + "=" + value + " is newer than Kubernetes "
                                + KUBERNETES_RELEASE + "; accepted with no effect");
                    }
                });
                return;
            }
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

    /**
     * One line for each Kubernetes v1.33 gate that was set and that winproxy does not act on (logged at debug level:
     * kube-proxy accepts these gates too, and most belong to other components).
     */
    public List<String> withoutEffect() {
        List<String> out = new ArrayList<>();
        explicit.forEach((name, value) -> KubernetesFeatureGates.bundled().find(name)
                .filter(gate -> !KNOWN.containsKey(name) && gate.release() == KubernetesFeatureGates.Release.V1_33)
                .ifPresent(gate -> out.add("feature gate " + name + "=" + value + " (" + gate.stage()
                        + " in Kubernetes " + KUBERNETES_RELEASE + ") is accepted and has no effect in winproxy")));
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
