package io.winproxy.agent.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.winproxy.agent.Messages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads and writes {@code kubeproxy.config.k8s.io/v1alpha1 KubeProxyConfiguration} files (YAML or JSON).
 *
 * <p>Decoding mirrors kube-proxy: strict first; a strict failure (unknown or duplicate field) falls back to
 * lenient decoding and yields the warning {@code Using lenient decoding as strict decoding failed: strict decoding
 * error: unknown field "winkernel.foo"}; any other problem (not YAML, wrong apiVersion or kind, a value of the wrong
 * type, a bad duration) is fatal and names the field. Writing produces what kube-proxy's {@code --write-config-to}
 * produces: every v1alpha1 field, keys sorted, durations in Go syntax, sync periods under {@code iptables}; winproxy's
 * one extension, {@code serviceProxyName}, only when it is set. Stateless.
 */
public final class KubeProxyConfigurationFile {

    /** The values present in a file, by path (not yet defaulted), and the strict-decoding problems found. */
    record Decoded(Map<String, Object> values, List<String> strictErrors) {
    }

    private KubeProxyConfigurationFile() {
    }

    /**
     * The configuration a file yields on its own ({@code --config FILE} and no other flag).
     *
     * @param env the environment ({@code KUBE_NETWORK}, host name)
     * @throws ConfigException when the file cannot be read or decoded, or a value is invalid
     */
    public static ProxyConfig read(Path path, Map<String, String> env) throws ConfigException {
        return ConfigResolver.resolve(new ProxyFlags().set("--config", path.toString()), env);
    }

    /** {@link #read(Path, Map)} with the machine's host name given (tests). */
    static ProxyConfig read(Path path, Map<String, String> env, String machineHostname) throws ConfigException {
        return ConfigResolver.resolve(new ProxyFlags().set("--config", path.toString()), env, () -> machineHostname);
    }

    /**
     * Writes the configuration as a KubeProxyConfiguration YAML file (atomically: a temporary file renamed over
     * the target). Reading it back with {@link #read} yields an equal configuration, apart from
     * {@link ProxyConfig#configFile()}, the flag-only settings (klog file flags, {@code --master},
     * {@code --windows-priorityclass}) and a disabled health or metrics server, which the file format cannot
     * express (an empty address means "default" in a file, as upstream).
     */
    public static void write(ProxyConfig config, Path path) throws IOException {
        Path dir = path.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Path tmp = Files.createTempFile(dir, path.getFileName().toString(), ".tmp");
        try {
            Files.writeString(tmp, render(config), StandardCharsets.UTF_8);
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The YAML text {@link #write} writes. */
    public static String render(ProxyConfig config) {
        try {
            return yamlWriter().writeValueAsString(document(config));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render the configuration as YAML", e);
        }
    }

    /**
     * The same document as JSON on one line, for the metrics server's {@code /configz} (which wraps it as
     * {@code {"kubeproxy.config.k8s.io": ...}}).
     */
    public static String renderJson(ProxyConfig config) {
        try {
            return new ObjectMapper().writeValueAsString(document(config));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render the configuration as JSON", e);
        }
    }

    private static Map<String, Object> document(ProxyConfig config) {
        Map<String, Object> root = new TreeMap<>();
        root.put("apiVersion", ConfigSchema.API_VERSION);
        root.put("kind", ConfigSchema.KIND);
        toValues(config).forEach((path, value) -> {
            ConfigSchema.Field field = ConfigSchema.FIELDS.get(path);
            Object encoded = ConfigSchema.encode(field, value);
            int dot = path.indexOf('.');
            if (dot < 0) {
                root.put(path, encoded);
            } else {
                @SuppressWarnings("unchecked")
                Map<String, Object> section = (Map<String, Object>) root.computeIfAbsent(path.substring(0, dot),
                        k -> new TreeMap<String, Object>());
                section.put(path.substring(dot + 1), encoded);
            }
        });
        return root;
    }

    /** Every written field of the configuration, by path. */
    static Map<String, Object> toValues(ProxyConfig c) {
        Map<String, Object> v = new TreeMap<>();
        v.put("bindAddress", c.bindAddress());
        v.put("bindAddressHardFail", c.bindAddressHardFail());
        v.put("clientConnection.acceptContentTypes", c.clientConnection().acceptContentTypes());
        v.put("clientConnection.burst", c.clientConnection().burst());
        v.put("clientConnection.contentType", c.clientConnection().contentType());
        v.put("clientConnection.kubeconfig", c.clientConnection().kubeconfig());
        v.put("clientConnection.qps", c.clientConnection().qps());
        v.put("clusterCIDR", String.join(",", c.clusterCidrs()));
        v.put("configSyncPeriod", c.configSyncPeriod());
        LinuxSettings.Conntrack ct = c.linux().conntrack();
        putIfPresent(v, "conntrack.maxPerCore", ct.maxPerCore());
        putIfPresent(v, "conntrack.min", ct.min());
        v.put("conntrack.tcpBeLiberal", ct.tcpBeLiberal());
        putIfPresent(v, "conntrack.tcpCloseWaitTimeout", ct.tcpCloseWaitTimeout());
        putIfPresent(v, "conntrack.tcpEstablishedTimeout", ct.tcpEstablishedTimeout());
        v.put("conntrack.udpStreamTimeout", ct.udpStreamTimeout());
        v.put("conntrack.udpTimeout", ct.udpTimeout());
        v.put("detectLocal.bridgeInterface", c.linux().bridgeInterface());
        v.put("detectLocal.interfaceNamePrefix", c.linux().interfaceNamePrefix());
        v.put("detectLocalMode", c.linux().detectLocalMode());
        v.put("enableProfiling", c.enableProfiling());
        v.put("featureGates", c.featureGates().explicit());
        v.put("healthzBindAddress", c.healthzBindAddress());
        v.put("hostnameOverride", c.configuredHostnameOverride());
        v.put("iptables.localhostNodePorts", c.linux().localhostNodePorts());
        v.put("iptables.masqueradeAll", c.linux().masqueradeAll());
        v.put("iptables.masqueradeBit", c.linux().masqueradeBit());
        v.put("iptables.minSyncPeriod", c.minSyncPeriod());
        v.put("iptables.syncPeriod", c.syncPeriod());
        LinuxSettings.Ipvs ipvs = c.linux().ipvs();
        v.put("ipvs.excludeCIDRs", ipvs.excludeCidrs());
        v.put("ipvs.minSyncPeriod", ipvs.minSyncPeriod());
        v.put("ipvs.scheduler", ipvs.scheduler());
        v.put("ipvs.strictARP", ipvs.strictArp());
        v.put("ipvs.syncPeriod", ipvs.syncPeriod());
        v.put("ipvs.tcpFinTimeout", ipvs.tcpFinTimeout());
        v.put("ipvs.tcpTimeout", ipvs.tcpTimeout());
        v.put("ipvs.udpTimeout", ipvs.udpTimeout());
        v.put("logging.flushFrequency", c.logging().flushFrequency());
        v.put("logging.format", c.logging().format());
        v.put("logging.options", c.logging().formatOptions());
        v.put("logging.verbosity", c.logging().verbosity());
        v.put("logging.vmodule", c.logging().vmodule());
        v.put("metricsBindAddress", c.metricsBindAddress());
        v.put("mode", c.mode());
        LinuxSettings.Nftables nft = c.linux().nftables();
        v.put("nftables.masqueradeAll", nft.masqueradeAll());
        v.put("nftables.masqueradeBit", nft.masqueradeBit());
        v.put("nftables.minSyncPeriod", nft.minSyncPeriod());
        v.put("nftables.syncPeriod", nft.syncPeriod());
        v.put("nodePortAddresses", c.nodePortAddresses());
        v.put("oomScoreAdj", c.linux().oomScoreAdj());
        v.put("portRange", c.portRange());
        if (!c.serviceProxyName().isEmpty()) {
            // winproxy's extension, not a v1alpha1 field: written only when set, so that a default file is one
            // kube-proxy reads strictly.
            v.put(ConfigSchema.SERVICE_PROXY_NAME, c.serviceProxyName());
        }
        v.put("showHiddenMetricsForVersion", c.showHiddenMetricsForVersion());
        v.put("windowsRunAsService", c.windowsService());
        v.put("winkernel.enableDSR", c.enableDsr());
        v.put("winkernel.forwardHealthCheckVip", c.forwardHealthCheckVip());
        v.put("winkernel.networkName", c.configuredNetworkName());
        v.put("winkernel.rootHnsEndpointName", c.rootHnsEndpointName());
        v.put("winkernel.sourceVip", c.sourceVip());
        return v;
    }

    /**
     * Decodes a file into the values it holds.
     *
     * @throws ConfigException for an unreadable file or a fatal decoding error (all fatal errors at once)
     */
    static Decoded decode(Path path) throws ConfigException {
        String text;
        try {
            text = decodeText(Files.readAllBytes(path));
        } catch (IOException e) {
            throw new ConfigException("failed to read config file \"" + path + "\": " + describe(e));
        }
        String prefix = "failed to decode config file \"" + path + "\": ";
        List<String> strict = new ArrayList<>();
        JsonNode root;
        try {
            root = parse(text, true);
        } catch (JsonProcessingException duplicate) {
            try {
                root = parse(text, false);
                strict.add(Messages.firstLine(duplicate.getOriginalMessage(), "invalid YAML").trim());
            } catch (JsonProcessingException e) {
                throw new ConfigException(prefix + Messages.firstLine(e.getOriginalMessage(), "invalid YAML").trim()
                        + where(e));
            }
        }
        if (root == null || !root.isObject()) {
            throw new ConfigException(prefix + "not a KubeProxyConfiguration object");
        }
        String apiVersion = root.path("apiVersion").asText("");
        String kind = root.path("kind").asText("");
        if (kind.isEmpty()) {
            throw new ConfigException(prefix + "Object 'Kind' is missing");
        }
        if (!ConfigSchema.API_VERSION.equals(apiVersion) || !ConfigSchema.KIND.equals(kind)) {
            throw new ConfigException(prefix + "no kind \"" + kind + "\" is registered for version \"" + apiVersion
                    + "\" (expected apiVersion " + ConfigSchema.API_VERSION + ", kind " + ConfigSchema.KIND + ")");
        }
        Map<String, Object> values = new TreeMap<>();
        List<String> fatal = new ArrayList<>();
        ObjectMapper mapper = new ObjectMapper();
        for (Map.Entry<String, JsonNode> top : root.properties()) {
            String key = top.getKey();
            if (key.equals("apiVersion") || key.equals("kind")) {
                continue;
            }
            if (ConfigSchema.SECTIONS.contains(key)) {
                JsonNode section = top.getValue();
                if (section.isNull()) {
                    continue;
                }
                if (!section.isObject()) {
                    fatal.add("KubeProxyConfiguration." + key + ": cannot decode " + section + " as an object");
                    continue;
                }
                for (Map.Entry<String, JsonNode> leaf : section.properties()) {
                    decodeField(key + "." + leaf.getKey(), leaf.getValue(), mapper, values, strict, fatal);
                }
            } else {
                decodeField(key, top.getValue(), mapper, values, strict, fatal);
            }
        }
        if (!fatal.isEmpty()) {
            throw new ConfigException(fatal.stream().map(m -> prefix + m).toList());
        }
        return new Decoded(values, strict);
    }

    /**
     * The file's text: UTF-8, or UTF-16 when a byte-order mark says so (Windows PowerShell 5.1's {@code Out-File}
     * writes UTF-16LE with a BOM; kube-proxy's YAML reader accepts it too).
     */
    static String decodeText(byte[] bytes) {
        if (bytes.length >= 2 && (bytes[0] & 0xff) == 0xff && (bytes[1] & 0xff) == 0xfe) {
            return new String(bytes, 2, bytes.length - 2, StandardCharsets.UTF_16LE);
        }
        if (bytes.length >= 2 && (bytes[0] & 0xff) == 0xfe && (bytes[1] & 0xff) == 0xff) {
            return new String(bytes, 2, bytes.length - 2, StandardCharsets.UTF_16BE);
        }
        if (bytes.length >= 3 && (bytes[0] & 0xff) == 0xef && (bytes[1] & 0xff) == 0xbb && (bytes[2] & 0xff) == 0xbf) {
            return new String(bytes, 3, bytes.length - 3, StandardCharsets.UTF_8);
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static void decodeField(String path, JsonNode node, ObjectMapper mapper, Map<String, Object> values,
                                    List<String> strict, List<String> fatal) {
        ConfigSchema.Field field = ConfigSchema.FIELDS.get(path);
        if (field == null) {
            strict.add("unknown field \"" + path + "\"");
            return;
        }
        if (node.isNull()) {
            return;
        }
        try {
            values.put(path, ConfigSchema.decode(field, node, mapper));
        } catch (IllegalArgumentException e) {
            fatal.add("KubeProxyConfiguration." + path + ": " + e.getMessage());
        }
    }

    private static JsonNode parse(String text, boolean strictDuplicates) throws JsonProcessingException {
        String trimmed = text.stripLeading();
        ObjectMapper mapper = trimmed.startsWith("{") ? new ObjectMapper() : new YAMLMapper();
        mapper.configure(JsonParser.Feature.STRICT_DUPLICATE_DETECTION, strictDuplicates);
        try {
            return mapper.readTree(text);
        } catch (JsonProcessingException e) {
            throw e;
        } catch (IOException e) {
            throw new IllegalStateException("reading from a string failed", e);
        }
    }

    private static ObjectMapper yamlWriter() {
        YAMLFactory factory = YAMLFactory.builder()
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
                .build();
        return new ObjectMapper(factory);
    }

    private static void putIfPresent(Map<String, Object> values, String path, Object value) {
        Optional.ofNullable(value).ifPresent(v -> values.put(path, v));
    }

    private static String describe(IOException e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    private static String where(JsonProcessingException e) {
        return e.getLocation() == null ? ""
                : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
    }
}
