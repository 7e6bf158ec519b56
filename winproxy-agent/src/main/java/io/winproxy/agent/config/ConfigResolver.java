package io.winproxy.agent.config;

import io.winproxy.agent.logging.LoggingOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Builds the one {@link ProxyConfig} of a run, with kube-proxy's precedence ({@code Options.Complete}):
 * <ol>
 *   <li>Start from the v1alpha1 defaults.</li>
 *   <li>Without {@code --config}: apply every explicitly given flag; then the deprecated {@code --healthz-port}
 *       and {@code --metrics-port} (unless {@code --write-config-to}).</li>
 *   <li>With {@code --config}: the file <em>replaces</em> the flags. Only these flags still apply: logging flags
 *       ({@code -v}, {@code --vmodule}, {@code --logging-format}, {@code --log-flush-frequency} and the klog
 *       file flags), {@code --hostname-override}, {@code --master}, and the invocation flags
 *       ({@code --cleanup}, {@code --write-config-to}). Every other flag given is ignored, with a warning.</li>
 *   <li>Windows platform defaults: blank mode becomes {@code kernelspace}, blank root endpoint {@code cbr0}.</li>
 *   <li>The node name: the override trimmed and lower-cased, else the host name lower-cased.</li>
 *   <li>The network name: configured, else env {@code KUBE_NETWORK}.</li>
 *   <li>Validate everything; all errors are reported together in one {@link ConfigException}.</li>
 * </ol>
 * Stateless; each call is independent.
 */
public final class ConfigResolver {

    /** Flags that map to a file field, by flag name. */
    static final Map<String, String> FLAG_FIELDS = flagFields();

    /** Logging flags that are copied over the file's values when given together with {@code --config}. */
    static final Set<String> LOGGING_FLAGS = Set.of("--v", "--vmodule", "--logging-format", "--log-flush-frequency");

    /** Flags that exist only on the command line and always apply. */
    static final Set<String> FLAG_ONLY = Set.of("--config", "--write-config-to", "--cleanup", "--init-only",
            "--master", "--windows-priorityclass", "--log-dir", "--log-file", "--log-file-max-size", "--logtostderr",
            "--alsologtostderr", "--stderrthreshold", "--log-json-split-stream",
            "--log-json-info-buffer-size", "--log-text-split-stream", "--log-text-info-buffer-size");

    private static final int HEALTHZ_PORT = 10256;
    private static final int METRICS_PORT = 10249;

    private ConfigResolver() {
    }

    /**
     * Resolves and validates the configuration.
     *
     * @param flags the parsed command line
     * @param env   the process environment ({@code KUBE_NETWORK}; {@code COMPUTERNAME}/{@code HOSTNAME} only when
     *              the OS cannot tell the host name)
     * @throws ConfigException naming every invalid flag or field
     */
    public static ProxyConfig resolve(ProxyFlags flags, Map<String, String> env) throws ConfigException {
        return resolve(flags, env, () -> HostName.machine(env));
    }

    /** {@link #resolve(ProxyFlags, Map)} with the machine's host name given (tests). */
    static ProxyConfig resolve(ProxyFlags flags, Map<String, String> env, Supplier<String> machineHostname)
            throws ConfigException {
        ConfigDraft draft = new ConfigDraft();
        Optional<Path> configFile = flags.get("--config").filter(s -> !s.isEmpty()).map(Path::of);
        Optional<Path> writeConfigTo = flags.get("--write-config-to").filter(s -> !s.isEmpty()).map(Path::of);

        warnNoEffectFlags(flags, draft);
        if (configFile.isPresent()) {
            applyFile(configFile.get(), draft);
            for (String flag : flags.given().keySet()) {
                if (LOGGING_FLAGS.contains(flag)) {
                    applyFlag(flags, flag, draft);
                } else if (flag.equals("--hostname-override")) {
                    // kube-proxy applies the override only when non-empty.
                    if (!flags.get(flag).orElse("").isEmpty()) {
                        applyFlag(flags, flag, draft);
                    }
                } else if (flag.equals("--windows-service")) {
                    // kube-proxy enters service mode from the flag before it loads the file (initForOS runs before
                    // Complete), so "--config FILE --windows-service" (OpenShift WMCO) runs as a service.
                    applyFlag(flags, flag, draft);
                } else if (FLAG_FIELDS.containsKey(flag) || flag.equals("--healthz-port")
                        || flag.equals("--metrics-port")) {
                    draft.warn("flag " + flag + " is ignored because --config is given (as in kube-proxy)"
                            + (FLAG_FIELDS.containsKey(flag) ? "; set " + FLAG_FIELDS.get(flag) + " in the file" : ""));
                }
            }
        } else {
            for (String flag : flags.given().keySet()) {
                if (FLAG_FIELDS.containsKey(flag)) {
                    applyFlag(flags, flag, draft);
                }
            }
            applyDeprecatedPorts(flags, draft, writeConfigTo.isPresent());
        }
        if (draft.string("mode").isEmpty()) {
            draft.set("mode", ProxyConfig.MODE_KERNELSPACE);
        }
        if (draft.string("winkernel.rootHnsEndpointName").isEmpty()) {
            draft.set("winkernel.rootHnsEndpointName", "cbr0");
        }

        String configuredOverride = resolveHostnameOverride(draft);
        String nodeName = configuredOverride.isEmpty()
                ? machineHostname.get().trim().toLowerCase(Locale.ROOT) : configuredOverride;
        if (nodeName.isEmpty()) {
            draft.error("empty hostname is invalid: the machine has no host name; set --hostname-override");
        }
        String configuredNetwork = draft.string("winkernel.networkName");
        String network = configuredNetwork.isEmpty()
                ? Optional.ofNullable(env.get("KUBE_NETWORK")).map(String::trim).orElse("") : configuredNetwork;

        LoggingOptions logging = LoggingFlags.loggingOptions(flags, draft);
        boolean cleanup = LoggingFlags.boolFlag(flags, "--cleanup", draft);
        if (LoggingFlags.boolFlag(flags, "--init-only", draft)) {
            draft.error("--init-only is not implemented on Windows");
        }
        String priorityClass = flags.get("--windows-priorityclass").orElse("");

        ConfigValidator.validate(draft, priorityClass);
        ConfigValidator.warnings(draft, flags, logging);
        if (!draft.errors().isEmpty()) {
            throw new ConfigException(draft.errors());
        }
        FeatureGates gates = new FeatureGates(draft.boolMap("featureGates"));
        gates.warnings().forEach(draft::warn);
        boolean alphaLogging = gates.explicit().getOrDefault("LoggingAlphaOptions",
                gates.explicit().getOrDefault("AllAlpha", false));
        LoggingFlags.ALPHA_OPTION_FLAGS.stream().filter(flags::isSet).filter(f -> !alphaLogging)
                .forEach(f -> draft.warn("flag " + f + " is an alpha logging option: kube-proxy refuses it without"
                        + " --feature-gates=LoggingAlphaOptions=true; winproxy accepts it"));

        return new ProxyConfig(
                draft.string("mode"),
                nodeName,
                configuredOverride,
                network,
                configuredNetwork,
                draft.string("winkernel.sourceVip"),
                draft.bool("winkernel.enableDSR"),
                draft.string("winkernel.rootHnsEndpointName"),
                draft.bool("winkernel.forwardHealthCheckVip"),
                gates,
                ConfigSchema.splitList(draft.string("clusterCIDR")),
                new ClientConnection(draft.string("clientConnection.kubeconfig"),
                        draft.string("clientConnection.acceptContentTypes"),
                        draft.string("clientConnection.contentType"),
                        draft.decimal("clientConnection.qps"),
                        draft.integer("clientConnection.burst")),
                flags.get("--master").orElse(""),
                draft.string("bindAddress"),
                draft.bool("bindAddressHardFail"),
                draft.string("healthzBindAddress"),
                draft.string("metricsBindAddress"),
                draft.duration(syncPath(draft, "syncPeriod")),
                draft.duration(syncPath(draft, "minSyncPeriod")),
                draft.duration("configSyncPeriod"),
                draft.list("nodePortAddresses"),
                draft.bool("enableProfiling"),
                draft.string("showHiddenMetricsForVersion"),
                draft.string("serviceProxyName"),
                draft.string("portRange"),
                draft.bool("windowsRunAsService"),
                priorityClass,
                logging,
                LinuxSettings.from(draft),
                cleanup,
                configFile,
                writeConfigTo,
                draft.warnings());
    }

    /**
     * Where the effective sync period lives: the top-level field of newer files when set, else {@code iptables.*}
     * (kube-proxy's v1alpha1 conversion for every mode but ipvs and nftables).
     */
    static String syncPath(ConfigDraft draft, String name) {
        Duration top = draft.duration(name);
        return top.isZero() || draft.fromFlag("iptables." + name) ? "iptables." + name : name;
    }

    private static void applyFile(Path file, ConfigDraft draft) throws ConfigException {
        KubeProxyConfigurationFile.Decoded decoded = KubeProxyConfigurationFile.decode(file);
        if (!decoded.strictErrors().isEmpty()) {
            draft.warn("Using lenient decoding as strict decoding failed: strict decoding error: "
                    + String.join(", ", decoded.strictErrors()));
        }
        Map<String, Object> values = decoded.values();
        values.forEach((path, value) -> {
            ConfigSchema.Field field = ConfigSchema.FIELDS.get(path);
            if (path.equals("featureGates")) {
                try {
                    FeatureGates.of(castGates(value));
                } catch (IllegalArgumentException e) {
                    draft.invalid(path, value, e.getMessage());
                    return;
                }
            }
            if (field.pointer() || !ConfigSchema.isZero(value)) {
                draft.set(path, value);
            }
            if ((field.pointer() || !ConfigSchema.isZero(value)) && !value.equals(field.defaultValue())) {
                ConfigSchema.noEffect(path).ifPresent(why -> draft.warn("KubeProxyConfiguration." + path + " " + why));
            }
        });
        // v1alpha1 defaulting of the server addresses depends on the bind address family.
        boolean v6 = FlagValues.isIpv6(draft.string("bindAddress"));
        defaultAddress(draft, values, "healthzBindAddress", v6 ? "::" : "0.0.0.0", HEALTHZ_PORT);
        defaultAddress(draft, values, "metricsBindAddress", v6 ? "::1" : "127.0.0.1", METRICS_PORT);
    }

    private static void defaultAddress(ConfigDraft draft, Map<String, Object> values, String path, String host,
                                       int port) {
        String given = (String) values.getOrDefault(path, "");
        draft.set(path, given.isEmpty() ? FlagValues.joinHostPort(host, port)
                : FlagValues.appendPortIfNeeded(given, port));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Boolean> castGates(Object value) {
        return (Map<String, Boolean>) value;
    }

    private static void applyFlag(ProxyFlags flags, String flag, ConfigDraft draft) {
        String path = FLAG_FIELDS.get(flag);
        String text = flags.get(flag).orElseThrow();
        ConfigSchema.Field field = ConfigSchema.FIELDS.get(path);
        try {
            draft.setFromFlag(path, ConfigSchema.parseFlag(field, text), flag);
        } catch (IllegalArgumentException e) {
            draft.invalidFlag(flag, text, e.getMessage());
        }
    }

    /** kube-proxy's {@code addressFromDeprecatedFlags}: {@code --healthz-port}/{@code --metrics-port}, 0 = off. */
    private static void applyDeprecatedPorts(ProxyFlags flags, ConfigDraft draft, boolean writeConfig) {
        deprecatedPort(flags, draft, writeConfig, "--healthz-port", "healthzBindAddress", HEALTHZ_PORT);
        deprecatedPort(flags, draft, writeConfig, "--metrics-port", "metricsBindAddress", METRICS_PORT);
    }

    private static void deprecatedPort(ProxyFlags flags, ConfigDraft draft, boolean writeConfig, String flag,
                                       String path, int defaultPort) {
        int port = defaultPort;
        Optional<String> given = flags.get(flag);
        if (given.isPresent()) {
            try {
                port = FlagValues.parseInt(given.get());
                if (port < 0 || port > 65535) {
                    draft.invalidFlag(flag, given.get(), "must be a valid port (0 disables)");
                    return;
                }
            } catch (IllegalArgumentException e) {
                draft.invalidFlag(flag, given.get(), e.getMessage());
                return;
            }
            if (writeConfig) {
                draft.warn("flag " + flag + " is ignored with --write-config-to (as in kube-proxy)");
                port = defaultPort;
            }
        }
        String address = draft.string(path);
        String flagName = draft.fromFlag(path) ? draft.name(path) : null;
        String value = port == 0 ? "" : FlagValues.appendPortIfNeeded(address, port);
        if (flagName != null) {
            draft.setFromFlag(path, value, flagName);
        } else if (given.isPresent()) {
            draft.setFromFlag(path, value, flag);
        } else {
            draft.set(path, value);
        }
    }

    /** The override as configured (flag wins over file), trimmed and lower-cased; "" when none. */
    private static String resolveHostnameOverride(ConfigDraft draft) {
        String raw = draft.string("hostnameOverride");
        if (raw.isEmpty()) {
            return "";
        }
        String trimmed = raw.trim();
        if (trimmed.isEmpty()) {
            draft.invalid("hostnameOverride", raw, "empty hostname-override is invalid");
            return "";
        }
        return trimmed.toLowerCase(Locale.ROOT);
    }

    private static void warnNoEffectFlags(ProxyFlags flags, ConfigDraft draft) {
        for (String flag : flags.given().keySet()) {
            if (ProxyFlags.LINUX_ONLY.contains(flag)) {
                draft.warn("flag " + flag + " applies to Linux proxy modes only and has no effect on Windows");
            } else if (ProxyFlags.NO_EFFECT.contains(flag)) {
                draft.warn("flag " + flag + " is deprecated or removed in kube-proxy and has no effect");
            } else if (flag.equals("--profiling") || flag.equals("--nodeport-addresses")) {
                ConfigSchema.noEffect(FLAG_FIELDS.get(flag))
                        .ifPresent(why -> draft.warn("flag " + flag + " " + why));
            }
        }
    }

    private static Map<String, String> flagFields() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("--feature-gates", "featureGates");
        m.put("--kubeconfig", "clientConnection.kubeconfig");
        m.put("--kube-api-content-type", "clientConnection.contentType");
        m.put("--kube-api-qps", "clientConnection.qps");
        m.put("--kube-api-burst", "clientConnection.burst");
        m.put("--hostname-override", "hostnameOverride");
        m.put("--bind-address", "bindAddress");
        m.put("--bind-address-hard-fail", "bindAddressHardFail");
        m.put("--healthz-bind-address", "healthzBindAddress");
        m.put("--metrics-bind-address", "metricsBindAddress");
        m.put("--profiling", "enableProfiling");
        m.put("--show-hidden-metrics-for-version", "showHiddenMetricsForVersion");
        m.put("--proxy-mode", "mode");
        m.put("--cluster-cidr", "clusterCIDR");
        m.put("--nodeport-addresses", "nodePortAddresses");
        m.put("--config-sync-period", "configSyncPeriod");
        m.put("--iptables-sync-period", "iptables.syncPeriod");
        m.put("--iptables-min-sync-period", "iptables.minSyncPeriod");
        m.put("--windows-service", "windowsRunAsService");
        m.put("--source-vip", "winkernel.sourceVip");
        m.put("--network-name", "winkernel.networkName");
        m.put("--enable-dsr", "winkernel.enableDSR");
        m.put("--root-hnsendpoint-name", "winkernel.rootHnsEndpointName");
        m.put("--forward-healthcheck-vip", "winkernel.forwardHealthCheckVip");
        m.put("--v", "logging.verbosity");
        m.put("--vmodule", "logging.vmodule");
        m.put("--logging-format", "logging.format");
        m.put("--log-flush-frequency", "logging.flushFrequency");
        m.put("--masquerade-all", "iptables.masqueradeAll");
        m.put("--iptables-masquerade-bit", "iptables.masqueradeBit");
        m.put("--iptables-localhost-nodeports", "iptables.localhostNodePorts");
        m.put("--oom-score-adj", "oomScoreAdj");
        m.put("--detect-local-mode", "detectLocalMode");
        m.put("--pod-bridge-interface", "detectLocal.bridgeInterface");
        m.put("--pod-interface-name-prefix", "detectLocal.interfaceNamePrefix");
        m.put("--conntrack-max-per-core", "conntrack.maxPerCore");
        m.put("--conntrack-min", "conntrack.min");
        m.put("--conntrack-tcp-timeout-established", "conntrack.tcpEstablishedTimeout");
        m.put("--conntrack-tcp-timeout-close-wait", "conntrack.tcpCloseWaitTimeout");
        m.put("--conntrack-tcp-be-liberal", "conntrack.tcpBeLiberal");
        m.put("--conntrack-udp-timeout", "conntrack.udpTimeout");
        m.put("--conntrack-udp-timeout-stream", "conntrack.udpStreamTimeout");
        m.put("--ipvs-sync-period", "ipvs.syncPeriod");
        m.put("--ipvs-min-sync-period", "ipvs.minSyncPeriod");
        m.put("--ipvs-scheduler", "ipvs.scheduler");
        m.put("--ipvs-exclude-cidrs", "ipvs.excludeCIDRs");
        m.put("--ipvs-strict-arp", "ipvs.strictARP");
        m.put("--ipvs-tcp-timeout", "ipvs.tcpTimeout");
        m.put("--ipvs-tcpfin-timeout", "ipvs.tcpFinTimeout");
        m.put("--ipvs-udp-timeout", "ipvs.udpTimeout");
        return Map.copyOf(m);
    }
}
