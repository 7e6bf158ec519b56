package io.winproxy.agent.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import io.winproxy.agent.logging.Vmodule;

/**
 * The fields of {@code kubeproxy.config.k8s.io/v1alpha1 KubeProxyConfiguration}, by JSON path, with their types and
 * v1alpha1 defaults (plus the Windows platform defaults applied later by {@link ConfigResolver}). Values are plain
 * Java values: String, Boolean, Integer, Float, {@link Duration}, {@code List<String>}, {@code Map<String,Boolean>}
 * (feature gates), a klog {@code vmodule} string, or a raw JSON-like object.
 *
 * <p>Defaulting follows Go's: a field of a non-pointer type whose value is the zero value ({@code ""}, 0,
 * {@code 0s}, false, empty) gets its default, so the zero-filled files kubeadm writes work; pointer fields
 * (masqueradeBit, oomScoreAdj, localhostNodePorts, conntrack limits) keep an explicit zero. Stateless.
 */
final class ConfigSchema {

    static final String API_VERSION = "kubeproxy.config.k8s.io/v1alpha1";
    /**
     * winproxy's one field beyond v1alpha1: handle only Services labelled
     * {@code service.kubernetes.io/service-proxy-name=<this>}. Read from a file; written only when set.
     */
    static final String SERVICE_PROXY_NAME = "serviceProxyName";
    static final String KIND = "KubeProxyConfiguration";

    enum Type { STRING, BOOL, INT, FLOAT, DURATION, STRING_LIST, BOOL_MAP, VMODULE, RAW }

    /** One leaf field: JSON path (dots between levels), type, v1alpha1 default, and Go pointer semantics. */
    record Field(String path, Type type, Object defaultValue, boolean pointer) {
    }

    static final Map<String, Field> FIELDS = index(
            f("bindAddress", Type.STRING, "0.0.0.0"),
            f("bindAddressHardFail", Type.BOOL, false),
            f("clientConnection.acceptContentTypes", Type.STRING, ""),
            f("clientConnection.burst", Type.INT, 10),
            f("clientConnection.contentType", Type.STRING, ClientConnection.DEFAULT_CONTENT_TYPE),
            f("clientConnection.kubeconfig", Type.STRING, ""),
            f("clientConnection.qps", Type.FLOAT, 5f),
            f("clusterCIDR", Type.STRING, ""),
            f("configSyncPeriod", Type.DURATION, Duration.ofMinutes(15)),
            p("conntrack.maxPerCore", Type.INT, 32768),
            p("conntrack.min", Type.INT, 131072),
            f("conntrack.tcpBeLiberal", Type.BOOL, false),
            p("conntrack.tcpCloseWaitTimeout", Type.DURATION, Duration.ofHours(1)),
            p("conntrack.tcpEstablishedTimeout", Type.DURATION, Duration.ofHours(24)),
            f("conntrack.udpStreamTimeout", Type.DURATION, Duration.ZERO),
            f("conntrack.udpTimeout", Type.DURATION, Duration.ZERO),
            f("detectLocal.bridgeInterface", Type.STRING, ""),
            f("detectLocal.interfaceNamePrefix", Type.STRING, ""),
            f("detectLocalMode", Type.STRING, ""),
            f("enableProfiling", Type.BOOL, false),
            f("featureGates", Type.BOOL_MAP, Map.of()),
            f("healthzBindAddress", Type.STRING, "0.0.0.0:10256"),
            f("hostnameOverride", Type.STRING, ""),
            p("iptables.localhostNodePorts", Type.BOOL, true),
            f("iptables.masqueradeAll", Type.BOOL, false),
            p("iptables.masqueradeBit", Type.INT, 14),
            f("iptables.minSyncPeriod", Type.DURATION, Duration.ofSeconds(1)),
            f("iptables.syncPeriod", Type.DURATION, Duration.ofSeconds(30)),
            f("ipvs.excludeCIDRs", Type.STRING_LIST, List.of()),
            f("ipvs.minSyncPeriod", Type.DURATION, Duration.ZERO),
            f("ipvs.scheduler", Type.STRING, ""),
            f("ipvs.strictARP", Type.BOOL, false),
            f("ipvs.syncPeriod", Type.DURATION, Duration.ofSeconds(30)),
            f("ipvs.tcpFinTimeout", Type.DURATION, Duration.ZERO),
            f("ipvs.tcpTimeout", Type.DURATION, Duration.ZERO),
            f("ipvs.udpTimeout", Type.DURATION, Duration.ZERO),
            f("logging.flushFrequency", Type.DURATION, Duration.ofSeconds(5)),
            f("logging.format", Type.STRING, "text"),
            f("logging.options", Type.RAW, Map.of()),
            f("logging.verbosity", Type.INT, 0),
            f("logging.vmodule", Type.VMODULE, ""),
            f("metricsBindAddress", Type.STRING, "127.0.0.1:10249"),
            f("minSyncPeriod", Type.DURATION, Duration.ZERO),
            f("mode", Type.STRING, ""),
            f("nftables.masqueradeAll", Type.BOOL, false),
            p("nftables.masqueradeBit", Type.INT, 14),
            f("nftables.minSyncPeriod", Type.DURATION, Duration.ofSeconds(1)),
            f("nftables.syncPeriod", Type.DURATION, Duration.ofSeconds(30)),
            f("nodePortAddresses", Type.STRING_LIST, List.of()),
            p("oomScoreAdj", Type.INT, -999),
            f("portRange", Type.STRING, ""),
            f(SERVICE_PROXY_NAME, Type.STRING, ""),
            f("showHiddenMetricsForVersion", Type.STRING, ""),
            f("syncPeriod", Type.DURATION, Duration.ZERO),
            f("windowsRunAsService", Type.BOOL, false),
            f("winkernel.enableDSR", Type.BOOL, false),
            f("winkernel.forwardHealthCheckVip", Type.BOOL, false),
            f("winkernel.networkName", Type.STRING, ""),
            f("winkernel.rootHnsEndpointName", Type.STRING, ""),
            f("winkernel.sourceVip", Type.STRING, ""));

    /** Fields of Linux proxy modes (iptables, ipvs, nftables, conntrack, OOM score, local-traffic detection). */
    private static final Set<String> LINUX_ONLY = Set.of("iptables.masqueradeAll", "iptables.masqueradeBit",
            "iptables.localhostNodePorts", "oomScoreAdj", "detectLocalMode");
    private static final List<String> LINUX_ONLY_SECTIONS = List.of("ipvs.", "nftables.", "conntrack.",
            "detectLocal.");

    /**
     * Why a field that the file sets has no effect on Windows, or empty when it has one. {@code iptables.syncPeriod}
     * and {@code iptables.minSyncPeriod} do have one: kube-proxy's Windows proxier reads its sync periods there.
     */
    static java.util.Optional<String> noEffect(String path) {
        if (LINUX_ONLY.contains(path) || LINUX_ONLY_SECTIONS.stream().anyMatch(path::startsWith)) {
            return java.util.Optional.of("applies to Linux proxy modes only and has no effect on Windows");
        }
        return switch (path) {
            case "nodePortAddresses" -> java.util.Optional.of("has no effect on Windows (the kernelspace proxier"
                    + " serves NodePorts on every node address, as kube-proxy's does)");
            case "enableProfiling" -> java.util.Optional.of("has no effect in winproxy (it serves no Go profiling"
                    + " handlers)");
            case "portRange" -> java.util.Optional.of("is deprecated in kube-proxy and has no effect");
            default -> java.util.Optional.empty();
        };
    }

    /** Names of the nested objects ({@code winkernel}, {@code iptables}, ...). */
    static final Set<String> SECTIONS = sections();

    private ConfigSchema() {
    }

    /** A mutable map of every field's default, by path. */
    static Map<String, Object> defaults() {
        Map<String, Object> values = new TreeMap<>();
        FIELDS.values().forEach(f -> values.put(f.path(), f.defaultValue()));
        return values;
    }

    /** Whether the value is Go's zero value for the field's type. */
    static boolean isZero(Object value) {
        if (value == null) {
            return true;
        }
        if (value instanceof String s) {
            return s.isEmpty();
        }
        if (value instanceof Boolean b) {
            return !b;
        }
        if (value instanceof Integer i) {
            return i == 0;
        }
        if (value instanceof Float f) {
            return f == 0f;
        }
        if (value instanceof Duration d) {
            return d.isZero();
        }
        if (value instanceof List<?> l) {
            return l.isEmpty();
        }
        if (value instanceof Map<?, ?> m) {
            return m.isEmpty();
        }
        return false;
    }

    /**
     * Decodes a file value.
     *
     * @throws IllegalArgumentException with a short reason when the JSON type does not fit the field
     */
    static Object decode(Field field, JsonNode node, ObjectMapper mapper) {
        return switch (field.type()) {
            case STRING -> fitting(node, node.isValueNode(), "a string").asText();
            case BOOL -> fitting(node, node.isBoolean(), "a bool").booleanValue();
            case INT -> fitting(node, node.isIntegralNumber() && node.canConvertToInt(), "an int32").intValue();
            case FLOAT -> fitting(node, node.isNumber(), "a float32").floatValue();
            // Only logging.flushFrequency (a TimeOrMetaDuration) also takes a number of nanoseconds.
            case DURATION -> node.isIntegralNumber() && field.path().equals("logging.flushFrequency")
                    ? Duration.ofNanos(node.longValue())
                    : GoDuration.parse(fitting(node, node.isTextual(), "a duration").textValue());
            case STRING_LIST -> decodeList(node);
            case BOOL_MAP -> decodeBoolMap(node);
            case VMODULE -> decodeVmodule(node);
            case RAW -> mapper.convertValue(fitting(node, node.isObject(), "an object"), Object.class);
        };
    }

    /**
     * {@code node} when {@code fits}.
     *
     * @throws IllegalArgumentException naming what was expected and what was found otherwise
     */
    private static JsonNode fitting(JsonNode node, boolean fits, String expected) {
        if (!fits) {
            throw mismatch(node, expected);
        }
        return node;
    }

    /**
     * Parses the text of a flag for a field.
     *
     * @throws IllegalArgumentException with a short reason when the text is not a value of the field's type
     */
    static Object parseFlag(Field field, String text) {
        return switch (field.type()) {
            case BOOL -> FlagValues.parseBool(text);
            case INT -> FlagValues.parseInt(text);
            case FLOAT -> FlagValues.parseFloat(text);
            case DURATION -> GoDuration.parse(text);
            case STRING_LIST -> splitList(text);
            case BOOL_MAP -> FeatureGates.parse(text).explicit();
            case VMODULE -> Vmodule.normalize(text);
            case STRING, RAW -> text;
        };
    }

    /** Encodes a value for writing: durations as Go text, vmodule as a list of objects, the rest as is. */
    static Object encode(Field field, Object value) {
        if (value instanceof Duration d) {
            return GoDuration.format(d);
        }
        if (value instanceof Float f && f == Math.rint(f) && Math.abs(f) < 1e9f) {
            return (long) f.floatValue();
        }
        if (field.type() == Type.VMODULE) {
            List<Map<String, Object>> out = new ArrayList<>();
            Vmodule.entries((String) value).forEach((pattern, level) -> {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("filePattern", pattern);
                entry.put("verbosity", level);
                out.add(entry);
            });
            return out;
        }
        return value;
    }

    static List<String> splitList(String text) {
        List<String> out = new ArrayList<>();
        for (String s : text.split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return List.copyOf(out);
    }

    private static List<String> decodeList(JsonNode node) {
        if (node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw mismatch(node, "a list of strings");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode item : node) {
            if (!item.isTextual()) {
                throw mismatch(item, "a string");
            }
            out.add(item.textValue());
        }
        return List.copyOf(out);
    }

    private static Map<String, Boolean> decodeBoolMap(JsonNode node) {
        if (node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw mismatch(node, "a map of bools");
        }
        Map<String, Boolean> out = new TreeMap<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            if (!e.getValue().isBoolean()) {
                throw new IllegalArgumentException("cannot decode " + e.getValue() + " as a bool for gate "
                        + e.getKey());
            }
            out.put(e.getKey(), e.getValue().booleanValue());
        }
        return out;
    }

    private static String decodeVmodule(JsonNode node) {
        if (node.isNull()) {
            return "";
        }
        if (!node.isArray()) {
            throw mismatch(node, "a list of {filePattern, verbosity}");
        }
        List<String> parts = new ArrayList<>();
        for (JsonNode item : node) {
            JsonNode pattern = item.get("filePattern");
            JsonNode level = item.get("verbosity");
            if (pattern == null || !pattern.isTextual() || level == null || !level.canConvertToInt()) {
                throw mismatch(item, "{filePattern: string, verbosity: int}");
            }
            parts.add(pattern.textValue() + "=" + level.intValue());
        }
        return Vmodule.normalize(String.join(",", parts));
    }

    private static IllegalArgumentException mismatch(JsonNode node, String expected) {
        return new IllegalArgumentException("cannot decode " + node + " as " + expected);
    }

    private static Field f(String path, Type type, Object defaultValue) {
        return new Field(path, type, defaultValue, false);
    }

    private static Field p(String path, Type type, Object defaultValue) {
        return new Field(path, type, defaultValue, true);
    }

    private static Map<String, Field> index(Field... fields) {
        Map<String, Field> map = new LinkedHashMap<>();
        for (Field f : fields) {
            map.put(f.path(), f);
        }
        return Collections.unmodifiableMap(map);
    }

    private static Set<String> sections() {
        Set<String> out = new TreeSet<>();
        FIELDS.keySet().stream().filter(p -> p.contains(".")).forEach(p -> out.add(p.substring(0, p.indexOf('.'))));
        return Collections.unmodifiableSet(out);
    }
}
