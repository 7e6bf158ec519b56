package io.winproxy.agent.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Every kube-proxy command-line flag a Windows launcher may pass, as a picocli mixin
 * ({@code @Mixin ProxyFlags flags;}). Names, meanings and defaults are kube-proxy's; the defaults are applied by
 * {@link ConfigResolver}, not here, because kube-proxy's precedence depends on which flags were given explicitly.
 *
 * <p>The mixin records the raw text of each flag that appears on the command line ({@link #given()}); nothing is
 * converted or validated here, so that {@link ConfigResolver} can report every bad value at once, naming the flag.
 * Accepted forms: {@code --flag value}, {@code --flag=value}, {@code --flag=} / {@code --flag ''} (an empty value,
 * which for {@code --healthz-bind-address} and {@code --metrics-bind-address} disables the server), Go-style
 * booleans ({@code --enable-dsr}, {@code --enable-dsr=true}, {@code --enable-dsr=false}), {@code -v 4},
 * {@code -v=4}, {@code --v=4}. A repeated flag keeps its last value, except {@code --feature-gates} (merged, as
 * kube-proxy does) and the list flags {@code --nodeport-addresses} and {@code --ipvs-exclude-cidrs} (appended).
 * For repeated flags the owning {@link CommandLine} needs {@code setOverwrittenOptionsAllowed(true)}; use
 * {@link #prepare(CommandLine)}.
 *
 * <p>One annotated setter per flag, on purpose, though they differ only in the flag's name: picocli hands a setter the
 * value, not the name it was given under, and every flag, the hidden Linux-only and removed ones included, must be
 * recorded under its own name (they are warned about by name). So the repetition below is picocli's form of a flag
 * table, and this class is a little over the usual size for it; the flags' meaning stays in the help texts and in
 * {@link #LINUX_ONLY} and {@link #NO_EFFECT}.
 *
 * <p>Not thread-safe; one instance per parse.
 */
public class ProxyFlags {

    /** Flags of Linux proxy modes: accepted (so launchers keep working), one warning each, no effect. */
    public static final Set<String> LINUX_ONLY = Set.of(
            "--masquerade-all", "--iptables-masquerade-bit", "--iptables-localhost-nodeports", "--oom-score-adj",
            "--detect-local-mode", "--pod-bridge-interface", "--pod-interface-name-prefix",
            "--conntrack-max-per-core", "--conntrack-min", "--conntrack-tcp-timeout-established",
            "--conntrack-tcp-timeout-close-wait", "--conntrack-tcp-be-liberal", "--conntrack-udp-timeout",
            "--conntrack-udp-timeout-stream", "--ipvs-sync-period", "--ipvs-min-sync-period", "--ipvs-scheduler",
            "--ipvs-exclude-cidrs", "--ipvs-strict-arp", "--ipvs-tcp-timeout", "--ipvs-tcpfin-timeout",
            "--ipvs-udp-timeout");

    /** Deprecated or removed kube-proxy and klog flags: accepted, one warning each, no effect. */
    public static final Set<String> NO_EFFECT = Set.of(
            "--proxy-port-range", "--resource-container", "--udp-timeout", "--one-output", "--skip-headers",
            "--skip-log-headers", "--add-dir-header", "--log-backtrace-at");

    /** Flags that accumulate over repetitions instead of keeping the last value. */
    private static final Set<String> ACCUMULATING = Set.of(
            "--feature-gates", "--nodeport-addresses", "--ipvs-exclude-cidrs");

    private final Map<String, String> given = new LinkedHashMap<>();

    /**
     * Parses a kube-proxy command line on its own (no subcommands), for callers and tests that do not build a
     * picocli command.
     *
     * @throws ConfigException for an unknown flag or a flag without its value, naming the flag
     */
    public static ProxyFlags parse(String... args) throws ConfigException {
        Holder holder = new Holder();
        CommandLine cl = prepare(new CommandLine(holder));
        try {
            cl.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new ConfigException(e.getMessage());
        }
        return holder.flags;
    }

    /** Configures {@code commandLine} for kube-proxy's flag semantics (a repeated flag overrides). */
    public static CommandLine prepare(CommandLine commandLine) {
        commandLine.setOverwrittenOptionsAllowed(true);
        return commandLine;
    }

    /** Flag name (long form, e.g. {@code --enable-dsr}; {@code --v} for {@code -v}) to its raw text, in order. */
    public Map<String, String> given() {
        return Collections.unmodifiableMap(given);
    }

    /** Whether the flag appeared on the command line (kube-proxy's {@code fs.Changed}). */
    public boolean isSet(String flag) {
        return given.containsKey(flag);
    }

    /** The raw text given for the flag, if it was given. */
    public Optional<String> get(String flag) {
        return Optional.ofNullable(given.get(flag));
    }

    /** Records a flag as given; used by the option setters, and by tests and callers that build flags by hand. */
    public ProxyFlags set(String flag, String value) {
        String v = unquote(value == null ? "" : value);
        if (ACCUMULATING.contains(flag) && given.containsKey(flag) && !v.isEmpty()) {
            String before = given.get(flag);
            given.put(flag, before.isEmpty() ? v : before + "," + v);
        } else {
            given.put(flag, v);
        }
        return this;
    }

    /**
     * A value wholly inside one pair of double quotes loses them. Windows splits a command line before the program
     * sees it, so {@code --kubeconfig="c:\k\config"} normally arrives unquoted; the quotes only reach the program
     * when a launcher quotes twice, and no path, address, duration or gate list can contain a double quote.
     */
    static String unquote(String value) {
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
            return value.substring(1, value.length() - 1);
        }
        return value;
    }

    /** The flags in the order given, as command-line words ({@code --flag=value}), e.g. for a start-up log line. */
    public List<String> asArguments() {
        return given.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
    }

    @Command(name = "kube-proxy")
    private static final class Holder {
        @Mixin
        ProxyFlags flags = new ProxyFlags();
    }

    // ---- configuration file ------------------------------------------------------------------------------------

    @Option(names = "--config", paramLabel = "FILE", description = "The path to the KubeProxyConfiguration file. "
            + "When given, the other flags are ignored (one warning each) except --hostname-override, --master, the "
            + "logging flags, --cleanup, --write-config-to, --windows-service and --windows-priorityclass.")
    void config(String v) { set("--config", v); }

    @Option(names = "--write-config-to", paramLabel = "FILE",
            description = "Write the effective configuration to this file as a v1alpha1 KubeProxyConfiguration "
                    + "and exit.")
    void writeConfigTo(String v) { set("--write-config-to", v); }

    @Option(names = "--cleanup", arity = "0..1", fallbackValue = "true", paramLabel = "BOOL",
            description = "Remove the HNS objects winproxy owns, then exit.")
    void cleanup(String v) { set("--cleanup", v); }

    @Option(names = "--init-only", arity = "0..1", fallbackValue = "true", paramLabel = "BOOL",
            description = "Not implemented on Windows (as in kube-proxy).")
    void initOnly(String v) { set("--init-only", v); }

    @Option(names = "--feature-gates", paramLabel = "KEY=BOOL,...",
            description = "Feature gates, e.g. WinDSR=true,WinOverlay=true.")
    void featureGates(String v) { set("--feature-gates", v); }

    // ---- API server connection ---------------------------------------------------------------------------------

    @Option(names = "--kubeconfig", paramLabel = "FILE", description = "Path to a kubeconfig file.")
    void kubeconfig(String v) { set("--kubeconfig", v); }

    @Option(names = "--master", paramLabel = "URL",
            description = "The API server address (overrides the kubeconfig).")
    void master(String v) { set("--master", v); }

    @Option(names = "--kube-api-content-type", paramLabel = "TYPE",
            description = "Content type of requests to the API server. Default: application/vnd.kubernetes.protobuf.")
    void kubeApiContentType(String v) { set("--kube-api-content-type", v); }

    @Option(names = "--kube-api-qps", paramLabel = "QPS",
            description = "Queries per second to the API server. Default: 5.")
    void kubeApiQps(String v) { set("--kube-api-qps", v); }

    @Option(names = "--kube-api-burst", paramLabel = "N", description = "Burst to the API server. Default: 10.")
    void kubeApiBurst(String v) { set("--kube-api-burst", v); }

    // ---- node and addresses ------------------------------------------------------------------------------------

    @Option(names = "--hostname-override", paramLabel = "NAME",
            description = "The node name to use instead of the host name. Wins over the config file.")
    void hostnameOverride(String v) { set("--hostname-override", v); }

    @Option(names = "--bind-address", paramLabel = "IP",
            description = "Overrides the node's primary IP (0.0.0.0 = detect). Default: 0.0.0.0.")
    void bindAddress(String v) { set("--bind-address", v); }

    @Option(names = "--bind-address-hard-fail", arity = "0..1", fallbackValue = "true", paramLabel = "BOOL",
            description = "Fail when a server cannot bind its port.")
    void bindAddressHardFail(String v) { set("--bind-address-hard-fail", v); }

    @Option(names = "--healthz-bind-address", paramLabel = "IP:PORT",
            description = "Health server address; empty disables it. Default: 0.0.0.0:10256.")
    void healthzBindAddress(String v) { set("--healthz-bind-address", v); }

    @Option(names = "--healthz-port", paramLabel = "PORT",
            description = "Deprecated: health server port; 0 disables it. Default: 10256.")
    void healthzPort(String v) { set("--healthz-port", v); }

    @Option(names = "--metrics-bind-address", paramLabel = "IP:PORT",
            description = "Metrics server address; empty disables it. Default: 127.0.0.1:10249.")
    void metricsBindAddress(String v) { set("--metrics-bind-address", v); }

    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "Deprecated: metrics server port; 0 disables it. Default: 10249.")
    void metricsPort(String v) { set("--metrics-port", v); }

    @Option(names = "--profiling", arity = "0..1", fallbackValue = "true", paramLabel = "BOOL",
            description = "Accepted with a warning: winproxy serves no Go profiling handlers.")
    void profiling(String v) { set("--profiling", v); }

    @Option(names = "--show-hidden-metrics-for-version", paramLabel = "VERSION",
            description = "The previous minor version whose hidden metrics to show.")
    void showHiddenMetricsForVersion(String v) { set("--show-hidden-metrics-for-version", v); }

    @Option(names = "--proxy-mode", paramLabel = "MODE",
            description = "Proxy mode: kernelspace (the only Windows mode) or empty.")
    void proxyMode(String v) { set("--proxy-mode", v); }

    @Option(names = "--cluster-cidr", paramLabel = "CIDR[,CIDR]",
            description = "The pod CIDR(s) of the cluster (one, or a dual-stack pair).")
    void clusterCidr(String v) { set("--cluster-cidr", v); }

    @Option(names = "--nodeport-addresses", paramLabel = "CIDR,...",
            description = "Accepted and validated, with a warning: no effect on Windows (NodePorts are served on"
                    + " every node address, as by kube-proxy's Windows proxier).")
    void nodeportAddresses(String v) { set("--nodeport-addresses", v); }

    // ---- sync timing -------------------------------------------------------------------------------------------

    @Option(names = "--config-sync-period", paramLabel = "DURATION",
            description = "Informer resync period. Default: 15m0s.")
    void configSyncPeriod(String v) { set("--config-sync-period", v); }

    @Option(names = "--iptables-sync-period", paramLabel = "DURATION",
            description = "Maximum interval between full syncs (kube-proxy uses this name on Windows). Default: 30s.")
    void iptablesSyncPeriod(String v) { set("--iptables-sync-period", v); }

    @Option(names = "--iptables-min-sync-period", paramLabel = "DURATION",
            description = "Minimum interval between syncs. Default: 1s.")
    void iptablesMinSyncPeriod(String v) { set("--iptables-min-sync-period", v); }

    // ---- Windows -----------------------------------------------------------------------------------------------

    @Option(names = "--network-name", paramLabel = "NAME",
            description = "The HNS network to program. Default: the KUBE_NETWORK environment variable.")
    void networkName(String v) { set("--network-name", v); }

    @Option(names = "--source-vip", paramLabel = "IP", description = "Source VIP of load balancers (overlay).")
    void sourceVip(String v) { set("--source-vip", v); }

    @Option(names = "--enable-dsr", arity = "0..1", fallbackValue = "true", paramLabel = "BOOL",
            description = "Direct Server Return for load balancers (needs gate WinDSR).")
    void enableDsr(String v) { set("--enable-dsr", v); }

    @Option(names = "--root-hnsendpoint-name", paramLabel = "NAME",
            description = "The host's root HNS endpoint (health-check LB backend). Default: cbr0.")
    void rootHnsEndpointName(String v) { set("--root-hnsendpoint-name", v); }

    @Option(names = "--forward-healthcheck-vip", arity = "0..1", fallbackValue = "true", paramLabel = "BOOL",
            description = "Forward health checks on LoadBalancer ingress IPs to the health server.")
    void forwardHealthcheckVip(String v) { set("--forward-healthcheck-vip", v); }

    @Option(names = "--windows-service", arity = "0..1", fallbackValue = "true", paramLabel = "BOOL",
            description = "Run as a Windows service.")
    void windowsService(String v) { set("--windows-service", v); }

    @Option(names = "--windows-priorityclass", paramLabel = "CLASS",
            description = "Process priority class, e.g. ABOVE_NORMAL_PRIORITY_CLASS. Default: NORMAL_PRIORITY_CLASS.")
    void windowsPriorityClass(String v) { set("--windows-priorityclass", v); }

    // ---- logging -----------------------------------------------------------------------------------------------

    @Option(names = {"-v", "--v"}, paramLabel = "LEVEL",
            description = "Log verbosity: 0-1 info, 2-3 debug, 4+ trace, 6+ API client debug.")
    void verbosity(String v) { set("--v", v); }

    @Option(names = "--vmodule", paramLabel = "LOGGER=LEVEL,...",
            description = "Per-logger verbosity, e.g. io.winproxy.agent.sync=5.")
    void vmodule(String v) { set("--vmodule", v); }

    @Option(names = "--logging-format", paramLabel = "FORMAT", description = "text (default) or json.")
    void loggingFormat(String v) { set("--logging-format", v); }

    @Option(names = "--log-flush-frequency", paramLabel = "DURATION",
            description = "Accepted for compatibility; logs are written immediately. Default: 5s.")
    void logFlushFrequency(String v) { set("--log-flush-frequency", v); }

    @Option(names = "--log-dir", paramLabel = "DIR",
            description = "Write klog-named files kube-proxy.exe.HOST.USER.log.SEVERITY.TIME.PID to DIR (with"
                    + " --logtostderr=false).")
    void logDir(String v) { set("--log-dir", v); }

    @Option(names = "--log-file", paramLabel = "FILE", description = "Write logs to FILE (with --logtostderr=false).")
    void logFile(String v) { set("--log-file", v); }

    @Option(names = "--log-file-max-size", paramLabel = "MB",
            description = "Start a new log file at this size in megabytes (5 older files are kept); 0 = one"
                    + " unbounded file. Default: 50 (klog: 1800, never deleted).")
    void logFileMaxSize(String v) { set("--log-file-max-size", v); }

    @Option(names = "--logtostderr", arity = "0..1", fallbackValue = "true", paramLabel = "BOOL",
            description = "Log to standard error instead of files. Default: true.")
    void logToStderr(String v) { set("--logtostderr", v); }

    @Option(names = "--alsologtostderr", arity = "0..1", fallbackValue = "true", paramLabel = "BOOL",
            description = "Log to standard error as well as files.")
    void alsoLogToStderr(String v) { set("--alsologtostderr", v); }

    @Option(names = "--stderrthreshold", paramLabel = "SEVERITY",
            description = "With file logging, also copy logs at or above this severity to stderr. Default: 2 (ERROR).")
    void stderrThreshold(String v) { set("--stderrthreshold", v); }

    @Option(names = "--log-json-split-stream", arity = "0..1", fallbackValue = "true", paramLabel = "BOOL",
            description = "With --logging-format=json, write info messages to stdout and errors to stderr.")
    void logJsonSplitStream(String v) { set("--log-json-split-stream", v); }

    @Option(names = "--log-json-info-buffer-size", paramLabel = "QUANTITY",
            description = "Accepted for compatibility (e.g. 64Ki); winproxy writes every message immediately.")
    void logJsonInfoBufferSize(String v) { set("--log-json-info-buffer-size", v); }

    @Option(names = "--log-text-split-stream", arity = "0..1", fallbackValue = "true", paramLabel = "BOOL",
            description = "With --logging-format=text, write info messages to stdout and errors to stderr.")
    void logTextSplitStream(String v) { set("--log-text-split-stream", v); }

    @Option(names = "--log-text-info-buffer-size", paramLabel = "QUANTITY",
            description = "Accepted for compatibility (e.g. 64Ki); winproxy writes every message immediately.")
    void logTextInfoBufferSize(String v) { set("--log-text-info-buffer-size", v); }

    @Option(names = "--one-output", arity = "0..1", fallbackValue = "true", hidden = true)
    void oneOutput(String v) { set("--one-output", v); }

    @Option(names = "--skip-headers", arity = "0..1", fallbackValue = "true", hidden = true)
    void skipHeaders(String v) { set("--skip-headers", v); }

    @Option(names = "--skip-log-headers", arity = "0..1", fallbackValue = "true", hidden = true)
    void skipLogHeaders(String v) { set("--skip-log-headers", v); }

    @Option(names = "--add-dir-header", arity = "0..1", fallbackValue = "true", hidden = true)
    void addDirHeader(String v) { set("--add-dir-header", v); }

    @Option(names = "--log-backtrace-at", hidden = true)
    void logBacktraceAt(String v) { set("--log-backtrace-at", v); }

    // ---- Linux-only and removed flags (accepted, warned about, no effect) ----------------------------------------

    @Option(names = "--masquerade-all", arity = "0..1", fallbackValue = "true", hidden = true)
    void masqueradeAll(String v) { set("--masquerade-all", v); }

    @Option(names = "--iptables-masquerade-bit", hidden = true)
    void iptablesMasqueradeBit(String v) { set("--iptables-masquerade-bit", v); }

    @Option(names = "--iptables-localhost-nodeports", arity = "0..1", fallbackValue = "true", hidden = true)
    void iptablesLocalhostNodeports(String v) { set("--iptables-localhost-nodeports", v); }

    @Option(names = "--oom-score-adj", hidden = true)
    void oomScoreAdj(String v) { set("--oom-score-adj", v); }

    @Option(names = "--detect-local-mode", hidden = true)
    void detectLocalMode(String v) { set("--detect-local-mode", v); }

    @Option(names = "--pod-bridge-interface", hidden = true)
    void podBridgeInterface(String v) { set("--pod-bridge-interface", v); }

    @Option(names = "--pod-interface-name-prefix", hidden = true)
    void podInterfaceNamePrefix(String v) { set("--pod-interface-name-prefix", v); }

    @Option(names = "--conntrack-max-per-core", hidden = true)
    void conntrackMaxPerCore(String v) { set("--conntrack-max-per-core", v); }

    @Option(names = "--conntrack-min", hidden = true)
    void conntrackMin(String v) { set("--conntrack-min", v); }

    @Option(names = "--conntrack-tcp-timeout-established", hidden = true)
    void conntrackTcpTimeoutEstablished(String v) { set("--conntrack-tcp-timeout-established", v); }

    @Option(names = "--conntrack-tcp-timeout-close-wait", hidden = true)
    void conntrackTcpTimeoutCloseWait(String v) { set("--conntrack-tcp-timeout-close-wait", v); }

    @Option(names = "--conntrack-tcp-be-liberal", arity = "0..1", fallbackValue = "true", hidden = true)
    void conntrackTcpBeLiberal(String v) { set("--conntrack-tcp-be-liberal", v); }

    @Option(names = "--conntrack-udp-timeout", hidden = true)
    void conntrackUdpTimeout(String v) { set("--conntrack-udp-timeout", v); }

    @Option(names = "--conntrack-udp-timeout-stream", hidden = true)
    void conntrackUdpTimeoutStream(String v) { set("--conntrack-udp-timeout-stream", v); }

    @Option(names = "--ipvs-sync-period", hidden = true)
    void ipvsSyncPeriod(String v) { set("--ipvs-sync-period", v); }

    @Option(names = "--ipvs-min-sync-period", hidden = true)
    void ipvsMinSyncPeriod(String v) { set("--ipvs-min-sync-period", v); }

    @Option(names = "--ipvs-scheduler", hidden = true)
    void ipvsScheduler(String v) { set("--ipvs-scheduler", v); }

    @Option(names = "--ipvs-exclude-cidrs", hidden = true)
    void ipvsExcludeCidrs(String v) { set("--ipvs-exclude-cidrs", v); }

    @Option(names = "--ipvs-strict-arp", arity = "0..1", fallbackValue = "true", hidden = true)
    void ipvsStrictArp(String v) { set("--ipvs-strict-arp", v); }

    @Option(names = "--ipvs-tcp-timeout", hidden = true)
    void ipvsTcpTimeout(String v) { set("--ipvs-tcp-timeout", v); }

    @Option(names = "--ipvs-tcpfin-timeout", hidden = true)
    void ipvsTcpfinTimeout(String v) { set("--ipvs-tcpfin-timeout", v); }

    @Option(names = "--ipvs-udp-timeout", hidden = true)
    void ipvsUdpTimeout(String v) { set("--ipvs-udp-timeout", v); }

    @Option(names = "--proxy-port-range", hidden = true)
    void proxyPortRange(String v) { set("--proxy-port-range", v); }

    @Option(names = "--resource-container", hidden = true)
    void resourceContainer(String v) { set("--resource-container", v); }

    @Option(names = "--udp-timeout", hidden = true)
    void udpTimeout(String v) { set("--udp-timeout", v); }
}
