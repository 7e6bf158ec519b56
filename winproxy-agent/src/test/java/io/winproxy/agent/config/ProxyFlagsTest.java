package io.winproxy.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

class ProxyFlagsTest {

    /** Every flag kube-proxy declares (options.go, init_windows.go and klog), with a sample value. */
    static final Map<String, String> EVERY_FLAG = Map.ofEntries(
            Map.entry("--config", "c.yaml"), Map.entry("--write-config-to", "w.yaml"), Map.entry("--cleanup", "true"),
            Map.entry("--init-only", "false"), Map.entry("--feature-gates", "WinDSR=true"),
            Map.entry("--kubeconfig", "c:\\k\\config"), Map.entry("--master", "https://api:6443"),
            Map.entry("--kube-api-content-type", "application/json"), Map.entry("--kube-api-qps", "20"),
            Map.entry("--kube-api-burst", "40"), Map.entry("--hostname-override", "node1"),
            Map.entry("--bind-address", "10.0.0.4"), Map.entry("--bind-address-hard-fail", "true"),
            Map.entry("--healthz-bind-address", "0.0.0.0:10256"), Map.entry("--healthz-port", "10256"),
            Map.entry("--metrics-bind-address", "127.0.0.1:10249"), Map.entry("--metrics-port", "10249"),
            Map.entry("--profiling", "true"), Map.entry("--show-hidden-metrics-for-version", "1.33"),
            Map.entry("--proxy-mode", "kernelspace"), Map.entry("--cluster-cidr", "10.244.0.0/16"),
            Map.entry("--nodeport-addresses", "10.0.0.0/8"), Map.entry("--config-sync-period", "15m"),
            Map.entry("--iptables-sync-period", "30s"), Map.entry("--iptables-min-sync-period", "1s"),
            Map.entry("--network-name", "Calico"), Map.entry("--source-vip", "10.244.1.2"),
            Map.entry("--enable-dsr", "true"), Map.entry("--root-hnsendpoint-name", "cbr0"),
            Map.entry("--forward-healthcheck-vip", "true"), Map.entry("--windows-service", "true"),
            Map.entry("--windows-priorityclass", "ABOVE_NORMAL_PRIORITY_CLASS"), Map.entry("--v", "4"),
            Map.entry("--vmodule", "io.winproxy=5"), Map.entry("--logging-format", "text"),
            Map.entry("--log-flush-frequency", "5s"), Map.entry("--log-dir", "C:\\k"),
            Map.entry("--log-file", "C:\\k\\kube-proxy.log"), Map.entry("--log-file-max-size", "100"),
            Map.entry("--logtostderr", "false"), Map.entry("--alsologtostderr", "true"),
            Map.entry("--stderrthreshold", "ERROR"), Map.entry("--one-output", "true"),
            Map.entry("--skip-headers", "true"), Map.entry("--skip-log-headers", "true"),
            Map.entry("--add-dir-header", "true"), Map.entry("--log-backtrace-at", ":0"),
            Map.entry("--masquerade-all", "true"), Map.entry("--iptables-masquerade-bit", "14"),
            Map.entry("--iptables-localhost-nodeports", "true"), Map.entry("--oom-score-adj", "-999"),
            Map.entry("--detect-local-mode", "ClusterCIDR"), Map.entry("--pod-bridge-interface", "cbr0"),
            Map.entry("--pod-interface-name-prefix", "veth"), Map.entry("--conntrack-max-per-core", "32768"),
            Map.entry("--conntrack-min", "131072"), Map.entry("--conntrack-tcp-timeout-established", "24h"),
            Map.entry("--conntrack-tcp-timeout-close-wait", "1h"), Map.entry("--conntrack-tcp-be-liberal", "true"),
            Map.entry("--conntrack-udp-timeout", "30s"), Map.entry("--conntrack-udp-timeout-stream", "2m"),
            Map.entry("--ipvs-sync-period", "30s"), Map.entry("--ipvs-min-sync-period", "1s"),
            Map.entry("--ipvs-scheduler", "rr"), Map.entry("--ipvs-exclude-cidrs", "10.0.0.0/8"),
            Map.entry("--ipvs-strict-arp", "true"), Map.entry("--ipvs-tcp-timeout", "0s"),
            Map.entry("--ipvs-tcpfin-timeout", "0s"), Map.entry("--ipvs-udp-timeout", "0s"),
            Map.entry("--proxy-port-range", "30000-32767"), Map.entry("--resource-container", ""),
            Map.entry("--udp-timeout", "250ms"));

    @Test
    void everyKubeProxyFlagIsAcceptedInTheEqualsForm() throws ConfigException {
        String[] args = EVERY_FLAG.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .toArray(String[]::new);
        assertThat(ProxyFlags.parse(args).given()).containsExactlyInAnyOrderEntriesOf(EVERY_FLAG);
    }

    @Test
    void everyKubeProxyFlagIsAcceptedInTheSpaceForm() throws ConfigException {
        String[] args = EVERY_FLAG.entrySet().stream().flatMap(e -> List.of(e.getKey(), e.getValue()).stream())
                .toArray(String[]::new);
        assertThat(ProxyFlags.parse(args).given()).containsExactlyInAnyOrderEntriesOf(EVERY_FLAG);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"--enable-dsr", "--cleanup", "--windows-service", "--forward-healthcheck-vip",
            "--logtostderr", "--alsologtostderr", "--profiling", "--bind-address-hard-fail", "--masquerade-all"})
    void aBooleanFlagWithoutValueMeansTrue(String flag) throws ConfigException {
        ProxyFlags flags = ProxyFlags.parse(flag, "--v=4");
        assertThat(flags.get(flag)).contains("true");
        assertThat(flags.get("--v")).contains("4");
    }

    @Test
    void goStyleBooleansKeepTheirText() throws ConfigException {
        assertThat(ProxyFlags.parse("--enable-dsr=false").get("--enable-dsr")).contains("false");
        assertThat(ProxyFlags.parse("--enable-dsr=true").get("--enable-dsr")).contains("true");
        assertThat(ProxyFlags.parse("--enable-dsr", "false").get("--enable-dsr")).contains("false");
    }

    @Test
    void verbosityAcceptsEveryKlogSpelling() throws ConfigException {
        assertThat(ProxyFlags.parse("-v", "3").get("--v")).contains("3");
        assertThat(ProxyFlags.parse("-v=3").get("--v")).contains("3");
        assertThat(ProxyFlags.parse("-v3").get("--v")).contains("3");
        assertThat(ProxyFlags.parse("--v=6").get("--v")).contains("6");
        assertThat(ProxyFlags.parse("--v", "1").get("--v")).contains("1");
    }

    @Test
    void anEmptyValueIsRecordedBecauseItDisablesAServer() throws ConfigException {
        ProxyFlags flags = ProxyFlags.parse("--healthz-bind-address", "", "--metrics-bind-address=");
        assertThat(flags.get("--healthz-bind-address")).contains("");
        assertThat(flags.get("--metrics-bind-address")).contains("");
        assertThat(flags.isSet("--healthz-bind-address")).isTrue();
    }

    @Test
    void onlyFlagsOnTheCommandLineAreRecordedAsGiven() throws ConfigException {
        ProxyFlags flags = ProxyFlags.parse("--proxy-mode=kernelspace", "--hostname-override=Node1");
        assertThat(flags.given().keySet()).containsExactly("--proxy-mode", "--hostname-override");
        assertThat(flags.isSet("--enable-dsr")).isFalse();
        assertThat(flags.get("--enable-dsr")).isEmpty();
    }

    @Test
    void aRepeatedFlagKeepsItsLastValueButFeatureGatesMerge() throws ConfigException {
        ProxyFlags flags = ProxyFlags.parse("--v=2", "--v=4", "--feature-gates=WinDSR=true",
                "--feature-gates", "WinOverlay=true", "--nodeport-addresses=10.0.0.0/8",
                "--nodeport-addresses=192.168.0.0/16");
        assertThat(flags.get("--v")).contains("4");
        assertThat(flags.get("--feature-gates")).contains("WinDSR=true,WinOverlay=true");
        assertThat(flags.get("--nodeport-addresses")).contains("10.0.0.0/8,192.168.0.0/16");
    }

    @Test
    void aValueInsideLiteralDoubleQuotesLosesThem() throws ConfigException {
        ProxyFlags flags = ProxyFlags.parse("--feature-gates=\"WinDSR=true,WinOverlay=true\"",
                "--kubeconfig=\"c:\\k\\config\"", "--resource-container=\"\"", "--network-name=a\"b");
        assertThat(flags.get("--feature-gates")).contains("WinDSR=true,WinOverlay=true");
        assertThat(flags.get("--kubeconfig")).contains("c:\\k\\config");
        assertThat(flags.get("--resource-container")).contains("");
        assertThat(flags.get("--network-name")).contains("a\"b");
    }

    @Test
    void anUnknownFlagIsAOneLineErrorNamingIt() {
        assertThatThrownBy(() -> ProxyFlags.parse("--no-such-flag=1"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--no-such-flag")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aFlagWithoutItsValueIsAnError() {
        assertThatThrownBy(() -> ProxyFlags.parse("--source-vip"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--source-vip");
    }

    @Command(name = "winproxy")
    static class Root {
        @Mixin
        ProxyFlags flags = new ProxyFlags();

        @Command(name = "plan")
        int plan() {
            return 0;
        }
    }

    @Test
    void theMixinWorksInsideACommandWithSubcommands() {
        Root root = new Root();
        CommandLine cl = ProxyFlags.prepare(new CommandLine(root));
        CommandLine.ParseResult result = cl.parseArgs("--enable-dsr", "--v=2", "--v=3", "plan");
        assertThat(root.flags.get("--enable-dsr")).contains("true");
        assertThat(root.flags.get("--v")).contains("3");
        assertThat(result.subcommand().commandSpec().name()).isEqualTo("plan");
    }

    @Test
    void theHelpListsTheWindowsFlagsAndHidesTheLinuxOnlyOnes() {
        String usage = new CommandLine(new Root()).getUsageMessage();
        assertThat(usage).contains("--enable-dsr").contains("--network-name").contains("--healthz-bind-address")
                .contains("-v, --v").doesNotContain("--conntrack-min").doesNotContain("--ipvs-scheduler");
    }

    @Test
    void flagsCanBeWrittenBackAsArguments() throws ConfigException {
        assertThat(ProxyFlags.parse("--v", "4", "--enable-dsr").asArguments())
                .containsExactly("--v=4", "--enable-dsr=true");
    }
}
