package io.winproxy.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigResolverTest {

    static final Map<String, String> ENV = Map.of("KUBE_NETWORK", "Calico");

    @TempDir
    Path dir;

    static ProxyConfig resolve(String... args) throws ConfigException {
        return ConfigResolver.resolve(ProxyFlags.parse(args), ENV, () -> "WIN-NODE-1 ");
    }

    static String errorOf(String... args) {
        try {
            resolve(args);
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError("expected a ConfigException for " + List.of(args));
    }

    @Test
    void withoutFlagsEveryValueIsKubeProxysWindowsDefault() throws ConfigException {
        ProxyConfig c = resolve();
        assertThat(c.mode()).isEqualTo("kernelspace");
        assertThat(c.hostnameOverride()).isEqualTo("win-node-1");
        assertThat(c.configuredHostnameOverride()).isEmpty();
        assertThat(c.networkName()).isEqualTo("Calico");
        assertThat(c.configuredNetworkName()).isEmpty();
        assertThat(c.sourceVip()).isEmpty();
        assertThat(c.enableDsr()).isFalse();
        assertThat(c.rootHnsEndpointName()).isEqualTo("cbr0");
        assertThat(c.forwardHealthCheckVip()).isFalse();
        assertThat(c.featureGates()).isEqualTo(FeatureGates.defaults());
        assertThat(c.clusterCidrs()).isEmpty();
        assertThat(c.clientConnection()).isEqualTo(
                new ClientConnection("", "", "application/vnd.kubernetes.protobuf", 5f, 10));
        assertThat(c.master()).isEmpty();
        assertThat(c.bindAddress()).isEqualTo("0.0.0.0");
        assertThat(c.healthzBindAddress()).isEqualTo("0.0.0.0:10256");
        assertThat(c.healthzPort()).hasValue(10256);
        assertThat(c.metricsBindAddress()).isEqualTo("127.0.0.1:10249");
        assertThat(c.syncPeriod()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.minSyncPeriod()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.configSyncPeriod()).isEqualTo(Duration.ofMinutes(15));
        assertThat(c.healthTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.windowsService()).isFalse();
        assertThat(c.windowsPriorityClass()).isEmpty();
        assertThat(c.logging().verbosity()).isZero();
        assertThat(c.logging().logToStderr()).isTrue();
        assertThat(c.linux().masqueradeBit()).isEqualTo(14);
        assertThat(c.linux().oomScoreAdj()).isEqualTo(-999);
        assertThat(c.cleanup()).isFalse();
        assertThat(c.configFile()).isEmpty();
        assertThat(c.writeConfigTo()).isEmpty();
        assertThat(c.warnings()).isEmpty();
    }

    @Test
    void theCalicoLauncherCommandLineResolves() throws ConfigException {
        ProxyConfig c = resolve("--hostname-override=WIN-W1", "--v=4", "--proxy-mode=kernelspace",
                "--kubeconfig=C:\\sandbox\\var\\lib\\kube-proxy\\kubeconfig-win.conf",
                "--enable-dsr=true", "--feature-gates=WinDSR=true,WinOverlay=true", "--source-vip=10.244.1.5");
        assertThat(c.hostnameOverride()).isEqualTo("win-w1");
        assertThat(c.logging().verbosity()).isEqualTo(4);
        assertThat(c.kubeconfig()).isEqualTo("C:\\sandbox\\var\\lib\\kube-proxy\\kubeconfig-win.conf");
        assertThat(c.enableDsr()).isTrue();
        assertThat(c.featureGates().enabled("WinDSR")).isTrue();
        assertThat(c.sourceVip()).isEqualTo("10.244.1.5");
        assertThat(c.networkName()).isEqualTo("Calico");
    }

    @Test
    void theSdnOverlayLauncherCommandLineResolves() throws ConfigException {
        ProxyConfig c = resolve("--v=4", "--proxy-mode=kernelspace", "--hostname-override=node2",
                "--kubeconfig=c:\\k\\config", "--feature-gates=\"WinOverlay=true\"", "--network-name=vxlan0",
                "--source-vip=10.244.2.3", "--enable-dsr=false", "--cluster-cidr=10.244.0.0/16",
                "--log-dir=C:\\k", "--logtostderr=false");
        assertThat(c.networkName()).isEqualTo("vxlan0");
        assertThat(c.configuredNetworkName()).isEqualTo("vxlan0");
        assertThat(c.featureGates().explicit()).containsExactly(Map.entry("WinOverlay", true));
        assertThat(c.clusterCidrs()).containsExactly("10.244.0.0/16");
        assertThat(c.logging().logToStderr()).isFalse();
        assertThat(c.logging().klogDirectory()).contains(Path.of("C:\\k"));
        assertThat(c.warnings()).isEmpty();
    }

    @Test
    void theHostnameOverrideIsTrimmedAndLowerCased() throws ConfigException {
        assertThat(resolve("--hostname-override=  My-Node  ").hostnameOverride()).isEqualTo("my-node");
    }

    @Test
    void withoutAnOverrideTheNodeNameIsTheMachinesHostNameLowerCased() throws ConfigException {
        ProxyConfig c = ConfigResolver.resolve(new ProxyFlags(), Map.of("KUBE_NETWORK", "x"));
        assertThat(c.hostnameOverride()).isEqualTo(HostName.machine(Map.of())).isNotEmpty()
                .isEqualTo(c.hostnameOverride().toLowerCase(java.util.Locale.ROOT).trim());
        assertThat(c.configuredHostnameOverride()).isEmpty();
    }

    @Test
    void aMachineWithoutHostNameNeedsAnOverride() {
        assertThatThrownBy(() -> ConfigResolver.resolve(new ProxyFlags(), ENV, () -> ""))
                .hasMessage("empty hostname is invalid: the machine has no host name; set --hostname-override");
    }

    @Test
    void aBlankHostnameOverrideIsAnErrorNamingTheFlag() {
        assertThat(errorOf("--hostname-override=   "))
                .isEqualTo("invalid value for --hostname-override: \"   \": empty hostname-override is invalid");
    }

    @Test
    void theNetworkNameFallsBackToKubeNetworkAndTheFlagWins() throws ConfigException {
        assertThat(resolve().networkName()).isEqualTo("Calico");
        assertThat(resolve("--network-name=azure").networkName()).isEqualTo("azure");
        ProxyConfig none = ConfigResolver.resolve(new ProxyFlags(), Map.of(), () -> "n");
        assertThat(none.networkName()).isEmpty();
        assertThatThrownBy(none::requireNetworkName)
                .hasMessageStartingWith("Environment variable KUBE_NETWORK and network-flag not initialized");
    }

    @Test
    void emptyServerAddressesDisableTheServers() throws ConfigException {
        ProxyConfig c = resolve("--healthz-bind-address", "", "--metrics-bind-address=");
        assertThat(c.healthzEnabled()).isFalse();
        assertThat(c.healthzPort()).isEmpty();
        assertThat(c.metricsEnabled()).isFalse();
    }

    @ParameterizedTest(name = "{0} {1} gives healthz {2}")
    @CsvSource(delimiter = '|', value = {
            "--healthz-port=0 | --v=0 | ''",
            "--healthz-port=12345 | --healthz-bind-address=10.0.0.4 | 10.0.0.4:12345",
            "--healthz-port=12345 | --v=0 | 0.0.0.0:10256",
            "--v=0 | --healthz-bind-address=10.0.0.4 | 10.0.0.4:10256",
            "--v=0 | --healthz-bind-address=:: | [::]:10256"})
    void theDeprecatedPortFlagsWorkAsInKubeProxy(String a, String b, String expected) throws ConfigException {
        assertThat(resolve(a, b).healthzBindAddress()).isEqualTo(expected);
    }

    @Test
    void metricsPortZeroDisablesTheMetricsServer() throws ConfigException {
        assertThat(resolve("--metrics-port=0").metricsEnabled()).isFalse();
    }

    @Test
    void syncPeriodsComeFromTheIptablesFlags() throws ConfigException {
        ProxyConfig c = resolve("--iptables-sync-period=1m", "--iptables-min-sync-period=0s",
                "--config-sync-period=5m");
        assertThat(c.syncPeriod()).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.minSyncPeriod()).isZero();
        assertThat(c.configSyncPeriod()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void clientConnectionFlagsAreApplied() throws ConfigException {
        ProxyConfig c = resolve("--kube-api-qps=50", "--kube-api-burst=100",
                "--kube-api-content-type=application/json", "--master=https://10.0.0.1:6443");
        assertThat(c.clientConnection()).isEqualTo(new ClientConnection("", "", "application/json", 50f, 100));
        assertThat(c.master()).isEqualTo("https://10.0.0.1:6443");
    }

    @Test
    void windowsFlagsAreApplied() throws ConfigException {
        ProxyConfig c = resolve("--root-hnsendpoint-name=vEthernet", "--forward-healthcheck-vip",
                "--windows-service", "--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS", "--logtostderr=false",
                "--log-file=C:\\k\\kubeproxy.log", "--log-file-max-size=10", "--cleanup=false");
        assertThat(c.rootHnsEndpointName()).isEqualTo("vEthernet");
        assertThat(c.forwardHealthCheckVip()).isTrue();
        assertThat(c.windowsService()).isTrue();
        assertThat(c.windowsPriorityClass()).isEqualTo("ABOVE_NORMAL_PRIORITY_CLASS");
        assertThat(c.logging().logFile()).contains(Path.of("C:\\k\\kubeproxy.log"));
        assertThat(c.logging().logFileMaxSizeMb()).isEqualTo(10);
        assertThat(c.cleanup()).isFalse();
        assertThat(c.warnings()).isEmpty();
    }

    @Test
    void cleanupAndWriteConfigToAreRecorded() throws ConfigException {
        ProxyConfig c = resolve("--cleanup", "--write-config-to=out.yaml");
        assertThat(c.cleanup()).isTrue();
        assertThat(c.writeConfigTo()).contains(Path.of("out.yaml"));
    }

    @Test
    void dualStackClusterCidrsAreSplit() throws ConfigException {
        assertThat(resolve("--cluster-cidr=10.244.0.0/16,fd00:10:244::/56").clusterCidrs())
                .containsExactly("10.244.0.0/16", "fd00:10:244::/56");
    }

    @Test
    void linuxOnlyFlagsAreAcceptedWithOneWarningEach() throws ConfigException {
        ProxyConfig c = resolve("--masquerade-all", "--oom-score-adj=-500", "--conntrack-min=1000",
                "--ipvs-scheduler=rr", "--resource-container=");
        assertThat(c.linux().masqueradeAll()).isTrue();
        assertThat(c.linux().oomScoreAdj()).isEqualTo(-500);
        assertThat(c.linux().conntrack().min()).isEqualTo(1000);
        assertThat(c.warnings()).containsExactly(
                "flag --masquerade-all applies to Linux proxy modes only and has no effect on Windows",
                "flag --oom-score-adj applies to Linux proxy modes only and has no effect on Windows",
                "flag --conntrack-min applies to Linux proxy modes only and has no effect on Windows",
                "flag --ipvs-scheduler applies to Linux proxy modes only and has no effect on Windows",
                "flag --resource-container is deprecated or removed in kube-proxy and has no effect");
    }

    @Test
    void aSourceVipOfTheOtherFamilyThanTheClusterIsAWarning() throws ConfigException {
        assertThat(resolve("--cluster-cidr=fd00::/56", "--source-vip=10.0.0.5").warnings())
                .contains("cluster is IPv6-only but winkernel.sourceVip is IPv4");
    }

    @Test
    void logFileFlagsWithoutLogtostderrFalseAreIgnoredWithAWarning() throws ConfigException {
        ProxyConfig c = resolve("--log-file=x.log");
        assertThat(c.logging().effectiveLogFile()).isEmpty();
        assertThat(c.warnings()).anyMatch(w -> w.contains("--logtostderr is true"));
    }

    @Test
    void gaGatesAreWarnedAbout() throws ConfigException {
        assertThat(resolve("--feature-gates=IPv6DualStack=true").warnings())
                .containsExactly("Setting GA feature gate IPv6DualStack=true. It will be removed in a future release.");
    }

    // ---- validation: one message per problem, naming the flag --------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "--proxy-mode=iptables | invalid value for --proxy-mode: \"iptables\": must be kernelspace or blank"
                    + " (blank means the most-available proxy [currently 'kernelspace'])",
            "--iptables-sync-period=0s | invalid value for --iptables-sync-period: \"0s\": must be greater than 0",
            "--iptables-min-sync-period=-1s | invalid value for --iptables-min-sync-period: \"-1s\":"
                    + " must be greater than or equal to 0",
            "--config-sync-period=0 | invalid value for --config-sync-period: \"0s\": must be greater than 0",
            "--iptables-sync-period=abc | invalid value for --iptables-sync-period: \"abc\":"
                    + " time: invalid duration \"abc\"",
            "--source-vip=1.2.3 | invalid value for --source-vip: \"1.2.3\": must be a valid IP",
            "--bind-address=nope | invalid value for --bind-address: \"nope\":"
                    + " not a valid textual representation of an IP address",
            "--healthz-bind-address=0.0.0.0:99999 | invalid value for --healthz-bind-address: \"0.0.0.0:99999\":"
                    + " must be a valid port",
            "--metrics-bind-address=localhost:10249 | invalid value for --metrics-bind-address:"
                    + " \"localhost:10249\": must be a valid IP",
            "--healthz-port=70000 | invalid value for --healthz-port: \"70000\": must be a valid port (0 disables)",
            "--kube-api-qps=fast | invalid value for --kube-api-qps: \"fast\":"
                    + " strconv.ParseFloat: parsing \"fast\": invalid syntax",
            "--kube-api-burst=-1 | invalid value for --kube-api-burst: -1: must be non-negative",
            "--enable-dsr=yes | invalid value for --enable-dsr: \"yes\": strconv.ParseBool: parsing \"yes\":"
                    + " invalid syntax",
            "--feature-gates=Foo=true | invalid value for --feature-gates: \"Foo=true\":"
                    + " unrecognized feature gate: Foo",
            "--feature-gates=WinDSR=maybe | invalid value for --feature-gates: \"WinDSR=maybe\": invalid value of"
                    + " WinDSR=maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax",
            "--cluster-cidr=10.244.0.0/33 | invalid value for --cluster-cidr: \"10.244.0.0/33\":"
                    + " must be a valid CIDR: 10.244.0.0/33",
            "--cluster-cidr=10.1.0.0/16,10.2.0.0/16 | invalid value for --cluster-cidr: \"10.1.0.0/16,10.2.0.0/16\":"
                    + " must be a valid DualStack CIDR (e.g. 10.100.0.0/16,fde4:8dba:82e1::/48)",
            "--nodeport-addresses=primary,10.0.0.0/8 | invalid value for --nodeport-addresses:"
                    + " \"primary,10.0.0.0/8\": can't use both 'primary' and CIDRs",
            "--iptables-masquerade-bit=40 | invalid value for --iptables-masquerade-bit: 40:"
                    + " must be within the range [0, 31]",
            "--oom-score-adj=-2000 | invalid value for --oom-score-adj: -2000: must be within the range [-1000, 1000]",
            "--windows-priorityclass=FAST | invalid value for --windows-priorityclass: \"FAST\": must be one of"
                    + " ABOVE_NORMAL_PRIORITY_CLASS, BELOW_NORMAL_PRIORITY_CLASS, HIGH_PRIORITY_CLASS,"
                    + " IDLE_PRIORITY_CLASS, NORMAL_PRIORITY_CLASS, REALTIME_PRIORITY_CLASS",
            "--init-only | --init-only is not implemented on Windows",
            "--v=-1 | invalid value for --v: -1: must be greater than or equal to 0",
            "--vmodule=sync | invalid value for --vmodule: \"sync\": expect comma-separated list of pattern=N,"
                    + " got \"sync\"",
            "--logging-format=xml | invalid value for --logging-format: \"xml\": supported values: \"json\", \"text\"",
            "--log-file-max-size=big | invalid value for --log-file-max-size: \"big\":"
                    + " strconv.ParseUint: parsing \"big\": invalid syntax",
            "--stderrthreshold=LOUD | invalid value for --stderrthreshold: \"LOUD\":"
                    + " must be one of INFO, WARNING, ERROR, FATAL or 0-3",
            "--detect-local-mode=Magic | invalid value for --detect-local-mode: \"Magic\": supported values:"
                    + " \"ClusterCIDR\", \"NodeCIDR\", \"BridgeInterface\", \"InterfaceNamePrefix\"",
            "--show-hidden-metrics-for-version=latest | invalid value for --show-hidden-metrics-for-version:"
                    + " \"latest\": must be a version in the format major.minor",
            "--conntrack-udp-timeout=-5s | invalid value for --conntrack-udp-timeout: \"-5s\":"
                    + " must be greater than or equal to 0"})
    void eachInvalidFlagIsReportedInOneLineNamingTheFlag(String arg, String message) {
        assertThat(errorOf(arg)).isEqualTo(message);
    }

    @Test
    void aMinSyncPeriodAboveTheSyncPeriodIsReportedOnTheSyncPeriod() {
        assertThat(errorOf("--iptables-sync-period=1s", "--iptables-min-sync-period=5s"))
                .isEqualTo("invalid value for --iptables-sync-period: \"5s\": must be greater than or equal to"
                        + " --iptables-min-sync-period");
    }

    @Test
    void allErrorsAreReportedTogetherOnOneLine() {
        try {
            resolve("--proxy-mode=ipvs", "--source-vip=x", "--kube-api-burst=-3");
            throw new AssertionError("expected a ConfigException");
        } catch (ConfigException e) {
            assertThat(e.errors()).hasSize(3);
            assertThat(e.getMessage()).doesNotContain("\n")
                    .contains("--proxy-mode").contains("--source-vip").contains("--kube-api-burst");
        }
    }

    // ---- precedence with --config --------------------------------------------------------------------------------

    private Path file(String yaml) throws IOException {
        Path f = dir.resolve("config.yaml");
        Files.writeString(f, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n" + yaml);
        return f;
    }

    @Test
    void withConfigTheFileReplacesTheFlagsAndIgnoredFlagsAreWarnedAbout() throws Exception {
        Path f = file("winkernel:\n  enableDSR: false\n  networkName: fromfile\nfeatureGates:\n  WinOverlay: true\n");
        ProxyConfig c = resolve("--config=" + f, "--enable-dsr=true", "--network-name=fromflag",
                "--feature-gates=WinDSR=true");
        assertThat(c.enableDsr()).isFalse();
        assertThat(c.networkName()).isEqualTo("fromfile");
        assertThat(c.featureGates().explicit()).containsExactly(Map.entry("WinOverlay", true));
        assertThat(c.configFile()).contains(f);
        assertThat(c.warnings()).containsExactly(
                "flag --enable-dsr is ignored because --config is given (as in kube-proxy);"
                        + " set winkernel.enableDSR in the file",
                "flag --network-name is ignored because --config is given (as in kube-proxy);"
                        + " set winkernel.networkName in the file",
                "flag --feature-gates is ignored because --config is given (as in kube-proxy);"
                        + " set featureGates in the file");
    }

    @Test
    void withConfigTheHostnameOverrideFlagWinsOverTheFile() throws Exception {
        Path f = file("hostnameOverride: file-node\n");
        assertThat(resolve("--config=" + f).hostnameOverride()).isEqualTo("file-node");
        assertThat(resolve("--config=" + f, "--hostname-override=Flag-Node").hostnameOverride())
                .isEqualTo("flag-node");
        assertThat(resolve("--config=" + f, "--hostname-override=").hostnameOverride()).isEqualTo("file-node");
    }

    @Test
    void withConfigExplicitLoggingFlagsWinOverTheFile() throws Exception {
        Path f = file("logging:\n  verbosity: 2\n  format: json\n");
        ProxyConfig fromFile = resolve("--config=" + f);
        assertThat(fromFile.logging().verbosity()).isEqualTo(2);
        assertThat(fromFile.logging().format()).isEqualTo("json");
        ProxyConfig withFlag = resolve("--config=" + f, "--v=6");
        assertThat(withFlag.logging().verbosity()).isEqualTo(6);
        assertThat(withFlag.logging().format()).isEqualTo("json");
        assertThat(withFlag.warnings()).isEmpty();
    }

    @Test
    void withConfigMasterAndKlogFileFlagsStillApply() throws Exception {
        Path f = file("clientConnection:\n  kubeconfig: c:\\k\\config\n");
        ProxyConfig c = resolve("--config=" + f, "--master=https://api:6443", "--logtostderr=false",
                "--log-file=k.log");
        assertThat(c.kubeconfig()).isEqualTo("c:\\k\\config");
        assertThat(c.master()).isEqualTo("https://api:6443");
        assertThat(c.logging().effectiveLogFile()).contains(Path.of("k.log"));
    }

    @Test
    void withConfigTheDeprecatedPortFlagsAreIgnored() throws Exception {
        Path f = file("");
        ProxyConfig c = resolve("--config=" + f, "--healthz-port=0");
        assertThat(c.healthzBindAddress()).isEqualTo("0.0.0.0:10256");
        assertThat(c.warnings()).singleElement().asString().contains("--healthz-port is ignored");
    }

    @Test
    void fileErrorsNameTheField() throws Exception {
        Path f = file("winkernel:\n  sourceVip: 1.2.3\niptables:\n  syncPeriod: -1s\n");
        assertThatThrownBy(() -> resolve("--config=" + f))
                .isInstanceOf(ConfigException.class)
                .hasMessage("KubeProxyConfiguration.iptables.syncPeriod: Invalid value: \"-1s\": must be greater"
                        + " than 0; KubeProxyConfiguration.winkernel.sourceVip: Invalid value: \"1.2.3\":"
                        + " must be a valid IP");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "configSyncPeriod: -1s | KubeProxyConfiguration.configSyncPeriod: Invalid value: \"-1s\": must be greater"
                    + " than 0",
            "iptables: {syncPeriod: 1s, minSyncPeriod: 2s} | KubeProxyConfiguration.iptables.syncPeriod: Invalid value:"
                    + " \"2s\": must be greater than or equal to KubeProxyConfiguration.iptables.minSyncPeriod",
            "minSyncPeriod: -1s | KubeProxyConfiguration.minSyncPeriod: Invalid value: \"-1s\":"
                    + " must be greater than or equal to 0",
            "bindAddress: 10.0.0 | KubeProxyConfiguration.bindAddress: Invalid value: \"10.0.0\": not a valid textual"
                    + " representation of an IP address",
            "healthzBindAddress: nohost:1 | KubeProxyConfiguration.healthzBindAddress: Invalid value: \"nohost:1\":"
                    + " must be a valid IP",
            "metricsBindAddress: 127.0.0.1:0 | KubeProxyConfiguration.metricsBindAddress: Invalid value:"
                    + " \"127.0.0.1:0\": must be a valid port",
            "clientConnection: {burst: -1} | KubeProxyConfiguration.clientConnection.burst: Invalid value: -1:"
                    + " must be non-negative",
            "clusterCIDR: 10.0.0.0/8,fd00::/8,10.1.0.0/16 | KubeProxyConfiguration.clusterCIDR: Invalid value:"
                    + " \"10.0.0.0/8,fd00::/8,10.1.0.0/16\": only one CIDR allowed or a valid DualStack CIDR"
                    + " (e.g. 10.100.0.0/16,fde4:8dba:82e1::/48)",
            "nodePortAddresses: [10.0.0.0] | KubeProxyConfiguration.nodePortAddresses: Invalid value: \"10.0.0.0\":"
                    + " must be a valid CIDR",
            "iptables: {masqueradeBit: 32} | KubeProxyConfiguration.iptables.masqueradeBit: Invalid value: 32:"
                    + " must be within the range [0, 31]",
            "nftables: {masqueradeBit: -1} | KubeProxyConfiguration.nftables.masqueradeBit: Invalid value: -1:"
                    + " must be within the range [0, 31]",
            "oomScoreAdj: 1001 | KubeProxyConfiguration.oomScoreAdj: Invalid value: 1001: must be within the range"
                    + " [-1000, 1000]",
            "conntrack: {maxPerCore: -1} | KubeProxyConfiguration.conntrack.maxPerCore: Invalid value: -1:"
                    + " must be greater than or equal to 0",
            "portRange: 2000-300 | KubeProxyConfiguration.portRange: Invalid value: \"2000-300\": must be a valid port"
                    + " range (e.g. 300-2000)",
            "showHiddenMetricsForVersion: v1 | KubeProxyConfiguration.showHiddenMetricsForVersion: Invalid value:"
                    + " \"v1\": must be a version in the format major.minor",
            "detectLocalMode: Nope | KubeProxyConfiguration.detectLocalMode: Unsupported value: \"Nope\": supported"
                    + " values: \"ClusterCIDR\", \"NodeCIDR\", \"BridgeInterface\", \"InterfaceNamePrefix\"",
            "logging: {format: xml} | KubeProxyConfiguration.logging.format: Unsupported value: \"xml\": supported"
                    + " values: \"json\", \"text\"",
            "logging: {vmodule: [{filePattern: a, verbosity: -2}]} | failed to decode config file \"FILE\":"
                    + " KubeProxyConfiguration.logging.vmodule: invalid verbosity \"-2\" for pattern \"a\"",
            "logging: {options: text} | failed to decode config file \"FILE\": KubeProxyConfiguration.logging.options:"
                    + " cannot decode \"text\" as an object",
            "hostnameOverride: '  ' | KubeProxyConfiguration.hostnameOverride: Invalid value: \"  \": empty"
                    + " hostname-override is invalid",
            "featureGates: {IPv6DualStack: false} | KubeProxyConfiguration.featureGates: Invalid value:"
                    + " {IPv6DualStack=false}: cannot set feature gate IPv6DualStack to false, feature is locked to true",
            "winkernel: {sourceVip: 'fd00::1%eth0'} | KubeProxyConfiguration.winkernel.sourceVip: Invalid value:"
                    + " \"fd00::1%eth0\": must be a valid IP"})
    void eachInvalidFileFieldIsReportedNamingTheField(String yaml, String message) throws Exception {
        Path f = file(yaml + "\n");
        assertThatThrownBy(() -> resolve("--config=" + f))
                .isInstanceOf(ConfigException.class)
                .hasMessage(message.replace("FILE", f.toString()));
    }

    @Test
    void loggingOptionsWithNullValuesAreKept() throws Exception {
        Path f = file("logging:\n  options:\n    json: null\n    text: {splitStream: true}\n");
        assertThat(resolve("--config=" + f).logging().formatOptions())
                .containsEntry("json", null).containsKey("text");
    }

    @Test
    void fileModeOtherThanKernelspaceIsAnErrorNamingTheField() throws Exception {
        Path f = file("mode: iptables\n");
        assertThatThrownBy(() -> resolve("--config=" + f))
                .hasMessageStartingWith("KubeProxyConfiguration.mode: Invalid value: \"iptables\": must be kernelspace"
                        + " or blank");
    }

    @Test
    void anUnknownFeatureGateInTheFileIsAnErrorNamingTheField() throws Exception {
        Path f = file("featureGates:\n  Foo: true\n");
        assertThatThrownBy(() -> resolve("--config=" + f))
                .hasMessage("KubeProxyConfiguration.featureGates: Invalid value: {Foo=true}:"
                        + " unrecognized feature gate: Foo");
    }

    @Test
    void aMissingConfigFileIsAnErrorNamingIt() {
        Path missing = dir.resolve("nope.yaml");
        assertThatThrownBy(() -> resolve("--config=" + missing))
                .hasMessageStartingWith("failed to read config file \"" + missing + "\"");
    }

    @Test
    void writeConfigToKeepsFlagsOnlyConfigurationIntact() throws ConfigException {
        ProxyConfig c = resolve("--write-config-to=x.yaml", "--healthz-port=0");
        assertThat(c.healthzBindAddress()).isEqualTo("0.0.0.0:10256");
        assertThat(c.writeConfigTo()).isEqualTo(Optional.of(Path.of("x.yaml")));
    }

    @Test
    void aClusterWideGateListFromAFileIsAcceptedWithOneWarningPerGateOfAnotherRelease() throws Exception {
        Path f = file("featureGates:\n  SidecarContainers: true\n  WinDSR: true\n  EnvFiles: true\n");
        ProxyConfig c = resolve("--config=" + f);
        assertThat(c.featureGates().explicit()).containsOnlyKeys("SidecarContainers", "WinDSR", "EnvFiles");
        assertThat(c.warnings()).containsExactly(
                "feature gate EnvFiles=true is newer than Kubernetes v1.33; accepted with no effect");
    }

    @Test
    void aLockedGateSetToTheOppositeValueNamesTheFlagAndTheGate() {
        assertThat(errorOf("--feature-gates=SidecarContainers=false")).isEqualTo("invalid value for --feature-gates:"
                + " \"SidecarContainers=false\": cannot set feature gate SidecarContainers to false, feature is"
                + " locked to true");
    }

    @Test
    void theFourSplitStreamAndBufferFlagsAreAcceptedAndSplitStreamActsForTheChosenFormat() throws ConfigException {
        ProxyConfig text = resolve("--log-text-split-stream", "--log-text-info-buffer-size=64Ki",
                "--log-json-split-stream=false", "--log-json-info-buffer-size=0",
                "--feature-gates=LoggingAlphaOptions=true");
        assertThat(text.logging().splitStream()).isTrue();
        assertThat(text.warnings()).isEmpty();
        assertThat(resolve("--logging-format=json", "--log-text-split-stream").logging().splitStream()).isFalse();
        assertThat(resolve("--logging-format=json", "--log-json-split-stream=true").logging().splitStream()).isTrue();
    }

    @Test
    void theAlphaLoggingFlagsWarnWhenKubeProxyWouldWantTheLoggingAlphaOptionsGate() throws ConfigException {
        assertThat(resolve("--log-json-info-buffer-size=1M").warnings()).containsExactly("flag"
                + " --log-json-info-buffer-size is an alpha logging option: kube-proxy refuses it without"
                + " --feature-gates=LoggingAlphaOptions=true; winproxy accepts it");
    }

    @Test
    void aBadBufferSizeNamesItsFlag() {
        assertThat(errorOf("--log-text-info-buffer-size=lots")).startsWith(
                "invalid value for --log-text-info-buffer-size: \"lots\": quantities must match");
        assertThat(errorOf("--log-json-split-stream=maybe")).startsWith(
                "invalid value for --log-json-split-stream: \"maybe\"");
    }

    @Test
    void theFilesSplitStreamOptionIsRead() throws Exception {
        Path f = file("logging:\n  format: json\n  options:\n    json:\n      splitStream: true\n");
        assertThat(resolve("--config=" + f).logging().splitStream()).isTrue();
    }

    @Test
    void profilingAndNodePortAddressesWarnOnceEachNamingTheFlag() throws ConfigException {
        assertThat(resolve("--profiling", "--nodeport-addresses=10.0.0.0/8").warnings()).containsExactly(
                "flag --profiling has no effect in winproxy (it serves no Go profiling handlers)",
                "flag --nodeport-addresses has no effect on Windows (the kernelspace proxier serves NodePorts on"
                        + " every node address, as kube-proxy's does)");
    }

    @Test
    void linuxOnlyFileFieldsWarnOnceEachNamingTheField() throws Exception {
        Path f = file("iptables:\n  masqueradeAll: true\n  syncPeriod: 10s\nipvs:\n  scheduler: rr\n"
                + "conntrack:\n  maxPerCore: 0\noomScoreAdj: -999\nnodePortAddresses: [primary]\n"
                + "enableProfiling: true\n");
        assertThat(resolve("--config=" + f).warnings()).containsExactlyInAnyOrder(
                "KubeProxyConfiguration.iptables.masqueradeAll applies to Linux proxy modes only and has no effect on"
                        + " Windows",
                "KubeProxyConfiguration.ipvs.scheduler applies to Linux proxy modes only and has no effect on"
                        + " Windows",
                "KubeProxyConfiguration.conntrack.maxPerCore applies to Linux proxy modes only and has no effect on"
                        + " Windows",
                "KubeProxyConfiguration.nodePortAddresses has no effect on Windows (the kernelspace proxier serves"
                        + " NodePorts on every node address, as kube-proxy's does)",
                "KubeProxyConfiguration.enableProfiling has no effect in winproxy (it serves no Go profiling"
                        + " handlers)");
    }

    @Test
    void aKubeadmFileWithEveryFieldAtItsZeroValueWarnsAboutNoLinuxField() throws Exception {
        Path f = dir.resolve("kubeadm.yaml");
        try (var in = getClass().getResourceAsStream("/config/kubeadm-windows-overlay.yaml")) {
            Files.write(f, in.readAllBytes());
        }
        assertThat(resolve("--config=" + f).warnings()).noneMatch(w -> w.contains("Linux")
                || w.contains("has no effect"));
    }
}
