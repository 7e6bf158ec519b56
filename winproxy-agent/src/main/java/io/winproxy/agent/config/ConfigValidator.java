package io.winproxy.agent.config;

import io.winproxy.agent.logging.LoggingOptions;
import io.winproxy.agent.logging.Vmodule;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * kube-proxy's configuration validation ({@code apis/config/validation}) plus the Windows rules, recording every
 * problem on the draft so that all are reported at once. Messages follow upstream's wording. Stateless.
 */
final class ConfigValidator {

    static final Set<String> PRIORITY_CLASSES = Set.of("IDLE_PRIORITY_CLASS", "BELOW_NORMAL_PRIORITY_CLASS",
            "NORMAL_PRIORITY_CLASS", "ABOVE_NORMAL_PRIORITY_CLASS", "HIGH_PRIORITY_CLASS", "REALTIME_PRIORITY_CLASS");

    private static final Set<String> DETECT_LOCAL_MODES = Set.of("", "ClusterCIDR", "NodeCIDR", "BridgeInterface",
            "InterfaceNamePrefix");
    private static final Pattern MAJOR_MINOR = Pattern.compile("\\d+\\.\\d+");
    private static final String DUAL_STACK_EXAMPLE = "(e.g. 10.100.0.0/16,fde4:8dba:82e1::/48)";

    private ConfigValidator() {
    }

    static void validate(ConfigDraft d, String priorityClass) {
        String mode = d.string("mode");
        if (!mode.equals(ProxyConfig.MODE_KERNELSPACE)) {
            d.invalid("mode", mode,
                    "must be kernelspace or blank (blank means the most-available proxy [currently 'kernelspace'])");
        }
        positive(d, "configSyncPeriod");
        String sync = ConfigResolver.syncPath(d, "syncPeriod");
        String minSync = ConfigResolver.syncPath(d, "minSyncPeriod");
        positive(d, sync);
        if (d.duration(minSync).isNegative()) {
            d.invalid(minSync, d.duration(minSync), "must be greater than or equal to 0");
        } else if (d.duration(minSync).compareTo(d.duration(sync)) > 0 && d.duration(sync).compareTo(Duration.ZERO) > 0) {
            d.invalid(sync, d.duration(minSync), "must be greater than or equal to " + d.name(minSync));
        }
        if (d.integer("clientConnection.burst") < 0) {
            d.invalid("clientConnection.burst", d.integer("clientConnection.burst"), "must be non-negative");
        }
        validateBindAddress(d);
        hostPort(d, "healthzBindAddress");
        hostPort(d, "metricsBindAddress");
        String sourceVip = d.string("winkernel.sourceVip");
        if (!sourceVip.isEmpty() && !FlagValues.isIp(sourceVip)) {
            d.invalid("winkernel.sourceVip", sourceVip, "must be a valid IP");
        }
        range(d, "iptables.masqueradeBit", 0, 31);
        range(d, "nftables.masqueradeBit", 0, 31);
        range(d, "oomScoreAdj", -1000, 1000);
        for (String path : List.of("conntrack.maxPerCore", "conntrack.min")) {
            if (d.integer(path) < 0) {
                d.invalid(path, d.integer(path), "must be greater than or equal to 0");
            }
        }
        for (String path : List.of("conntrack.tcpEstablishedTimeout", "conntrack.tcpCloseWaitTimeout",
                "conntrack.udpTimeout", "conntrack.udpStreamTimeout")) {
            if (d.duration(path).isNegative()) {
                d.invalid(path, d.duration(path), "must be greater than or equal to 0");
            }
        }
        validatePortRange(d);
        validateClusterCidr(d);
        validateNodePortAddresses(d);
        String hidden = d.string("showHiddenMetricsForVersion");
        if (!hidden.isEmpty() && !MAJOR_MINOR.matcher(hidden).matches()) {
            d.invalid("showHiddenMetricsForVersion", hidden, "must be a version in the format major.minor");
        }
        String detectLocalMode = d.string("detectLocalMode");
        if (!DETECT_LOCAL_MODES.contains(detectLocalMode)) {
            d.error(unsupported(d, "detectLocalMode", detectLocalMode,
                    "\"ClusterCIDR\", \"NodeCIDR\", \"BridgeInterface\", \"InterfaceNamePrefix\""));
        }
        if (d.integer("logging.verbosity") < 0) {
            d.invalid("logging.verbosity", d.integer("logging.verbosity"), "must be greater than or equal to 0");
        }
        String format = d.string("logging.format");
        if (!format.equals("text") && !format.equals("json")) {
            d.error(unsupported(d, "logging.format", format, "\"json\", \"text\""));
        }
        if (!priorityClass.isEmpty() && !PRIORITY_CLASSES.contains(priorityClass)) {
            d.invalidFlag("--windows-priorityclass", priorityClass,
                    "must be one of " + String.join(", ", PRIORITY_CLASSES.stream().sorted().toList()));
        }
    }

    /** Non-fatal findings, recorded as warnings. */
    static void warnings(ConfigDraft d, ProxyFlags flags, LoggingOptions logging) {
        List<String> cidrs = ConfigSchema.splitList(d.string("clusterCIDR"));
        String sourceVip = d.string("winkernel.sourceVip");
        if (cidrs.size() == 1 && FlagValues.isCidr(cidrs.get(0)) && FlagValues.isIp(sourceVip)) {
            boolean clusterV6 = FlagValues.isCidrIpv6(cidrs.get(0));
            boolean vipV6 = FlagValues.isIpv6(sourceVip);
            if (clusterV6 != vipV6) {
                d.warn("cluster is " + (clusterV6 ? "IPv6" : "IPv4") + "-only but winkernel.sourceVip is "
                        + (vipV6 ? "IPv6" : "IPv4"));
            }
        }
        if (logging.logToStderr() && (flags.isSet("--log-file") || flags.isSet("--log-dir"))) {
            d.warn("--log-file and --log-dir are ignored because --logtostderr is true (as in klog);"
                    + " add --logtostderr=false to log to a file");
        }
        if (d.bool("windowsRunAsService") && logging.logToStderr()) {
            d.warn("running as a Windows service with logs on stderr only, which the service manager discards;"
                    + " add --logtostderr=false --log-file=FILE");
        }
        try {
            Vmodule.entries(logging.vmodule()).keySet().stream()
                    .filter(p -> p.contains("*") || p.endsWith(".go") || p.contains("/"))
                    .forEach(p -> d.warn("--vmodule pattern \"" + p + "\" is a Go file pattern; winproxy matches"
                            + " logger names such as io.winproxy.agent.sync"));
        } catch (IllegalArgumentException e) {
            // reported as an error by the flag or file decoding
        }
    }

    private static void positive(ConfigDraft d, String path) {
        Duration value = d.duration(path);
        if (value.isNegative() || value.isZero()) {
            d.invalid(path, value, "must be greater than 0");
        }
    }

    private static void range(ConfigDraft d, String path, int min, int max) {
        int value = d.integer(path);
        if (value < min || value > max) {
            d.invalid(path, value, "must be within the range [" + min + ", " + max + "]");
        }
    }

    private static void validateBindAddress(ConfigDraft d) {
        String bind = d.string("bindAddress");
        List<String> ips = List.of(bind.split(",", -1));
        boolean ok = ips.stream().allMatch(FlagValues::isIp)
                && (ips.size() == 1 || ips.size() == 2 && FlagValues.isIpv6(ips.get(0)) != FlagValues.isIpv6(ips.get(1)));
        if (!ok) {
            d.invalid("bindAddress", bind, "not a valid textual representation of an IP address");
        }
    }

    private static void hostPort(ConfigDraft d, String path) {
        String value = d.string(path);
        if (value.isEmpty()) {
            return;
        }
        Optional<String[]> hp = FlagValues.splitHostPort(value);
        if (hp.isEmpty()) {
            d.invalid(path, value, "must be IP:port");
            return;
        }
        if (!FlagValues.isIp(hp.get()[0])) {
            d.invalid(path, value, "must be a valid IP");
        }
        String port = hp.get()[1];
        boolean validPort = port.matches("\\d{1,5}") && Integer.parseInt(port) >= 1 && Integer.parseInt(port) <= 65535;
        if (!validPort) {
            d.invalid(path, value, "must be a valid port");
        }
    }

    private static void validatePortRange(ConfigDraft d) {
        String range = d.string("portRange").trim();
        if (range.isEmpty()) {
            return;
        }
        String[] parts = range.split("[-+]", -1);
        boolean ok = parts.length <= 2 && List.of(parts).stream().allMatch(p -> p.matches("\\d{1,5}"));
        if (ok) {
            int base = Integer.parseInt(parts[0]);
            int second = parts.length == 2 ? Integer.parseInt(parts[1]) : 0;
            int max = parts.length == 1 ? base : range.contains("+") ? base + second : second;
            ok = base <= 65535 && max <= 65535 && max >= base;
        }
        if (!ok) {
            d.invalid("portRange", d.string("portRange"), "must be a valid port range (e.g. 300-2000)");
        }
    }

    private static void validateClusterCidr(ConfigDraft d) {
        String text = d.string("clusterCIDR");
        if (text.isEmpty()) {
            return;
        }
        List<String> cidrs = ConfigSchema.splitList(text);
        if (cidrs.size() > 2) {
            d.invalid("clusterCIDR", text, "only one CIDR allowed or a valid DualStack CIDR " + DUAL_STACK_EXAMPLE);
            return;
        }
        for (String cidr : cidrs) {
            if (!FlagValues.isCidr(cidr)) {
                d.invalid("clusterCIDR", text, "must be a valid CIDR: " + cidr);
                return;
            }
        }
        if (cidrs.size() == 2 && FlagValues.isCidrIpv6(cidrs.get(0)) == FlagValues.isCidrIpv6(cidrs.get(1))) {
            d.invalid("clusterCIDR", text, "must be a valid DualStack CIDR " + DUAL_STACK_EXAMPLE);
        }
    }

    private static void validateNodePortAddresses(ConfigDraft d) {
        List<String> values = d.list("nodePortAddresses");
        if (values.contains("primary")) {
            if (values.size() > 1) {
                d.invalid("nodePortAddresses", String.join(",", values), "can't use both 'primary' and CIDRs");
            }
            return;
        }
        for (String cidr : values) {
            if (!FlagValues.isCidr(cidr)) {
                d.invalid("nodePortAddresses", cidr, "must be a valid CIDR");
            }
        }
    }

    private static String unsupported(ConfigDraft d, String path, String value, String supported) {
        if (d.fromFlag(path)) {
            return "invalid value for " + d.name(path) + ": \"" + value + "\": supported values: " + supported;
        }
        return "KubeProxyConfiguration." + path + ": Unsupported value: \"" + value + "\": supported values: "
                + supported;
    }
}
