package io.winproxy.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Golden files under src/test/resources/config: samples as launchers write them, and the expected effective
 * configuration of each ({@code *.expected.yaml}, compared as YAML trees).
 */
class KubeProxyConfigurationFileTest {

    static final Map<String, String> ENV = Map.of();
    static final String HOST = "WIN-NODE-1";

    @TempDir
    Path dir;

    static Path resource(String name) {
        try {
            return Path.of(KubeProxyConfigurationFileTest.class.getResource("/config/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static JsonNode tree(String yaml) throws IOException {
        return new YAMLMapper().readTree(yaml);
    }

    static void assertMatchesGolden(ProxyConfig config, String golden) throws IOException {
        assertThat(tree(KubeProxyConfigurationFile.render(config)))
                .isEqualTo(tree(Files.readString(resource(golden))));
    }

    /** The configuration without what a file cannot carry, for round-trip comparisons. */
    static ProxyConfig comparable(ProxyConfig c) {
        return new ProxyConfig(c.mode(), c.hostnameOverride(), c.configuredHostnameOverride(), c.networkName(),
                c.configuredNetworkName(), c.sourceVip(), c.enableDsr(), c.rootHnsEndpointName(),
                c.forwardHealthCheckVip(), c.featureGates(), c.clusterCidrs(), c.clientConnection(), c.master(),
                c.bindAddress(), c.bindAddressHardFail(), c.healthzBindAddress(), c.metricsBindAddress(),
                c.syncPeriod(), c.minSyncPeriod(), c.configSyncPeriod(), c.nodePortAddresses(), c.enableProfiling(),
                c.showHiddenMetricsForVersion(), c.serviceProxyName(), c.portRange(), c.windowsService(),
                c.windowsPriorityClass(), c.logging(), c.linux(), c.cleanup(), Optional.empty(), Optional.empty(),
                List.of());
    }

    @Test
    void aKubeadmFileWithZeroValuesGetsKubeProxysDefaults() throws Exception {
        ProxyConfig c = KubeProxyConfigurationFile.read(resource("kubeadm-windows-overlay.yaml"), ENV, HOST);
        assertThat(c.mode()).isEqualTo("kernelspace");
        assertThat(c.kubeconfig()).isEqualTo("/var/lib/kube-proxy/kubeconfig.conf");
        assertThat(c.clientConnection().qps()).isEqualTo(5f);
        assertThat(c.clientConnection().burst()).isEqualTo(10);
        assertThat(c.clientConnection().contentType()).isEqualTo("application/vnd.kubernetes.protobuf");
        assertThat(c.clusterCidrs()).containsExactly("10.244.0.0/16");
        assertThat(c.configSyncPeriod()).isEqualTo(Duration.ofMinutes(15));
        assertThat(c.syncPeriod()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.minSyncPeriod()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.healthzBindAddress()).isEqualTo("0.0.0.0:10256");
        assertThat(c.metricsBindAddress()).isEqualTo("127.0.0.1:10249");
        assertThat(c.networkName()).isEqualTo("vxlan0");
        assertThat(c.sourceVip()).isEqualTo("10.244.1.0");
        assertThat(c.rootHnsEndpointName()).isEqualTo("cbr0");
        assertThat(c.featureGates().explicit()).containsExactly(Map.entry("WinOverlay", true));
        assertThat(c.hostnameOverride()).isEqualTo("win-node-1");
        assertThat(c.linux().masqueradeBit()).isEqualTo(14);
        assertThat(c.linux().localhostNodePorts()).isTrue();
        assertThat(c.linux().oomScoreAdj()).isEqualTo(-999);
        assertThat(c.logging().flushFrequency()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.warnings()).isEmpty();
        assertMatchesGolden(c, "kubeadm-windows-overlay.expected.yaml");
    }

    @Test
    void theSdnHelperJsonFileIsRead() throws Exception {
        ProxyConfig c = KubeProxyConfigurationFile.read(resource("sdn-helper-dsr.json"), ENV, HOST);
        assertThat(c.hostnameOverride()).isEqualTo("win-sdn-01");
        assertThat(c.configuredHostnameOverride()).isEqualTo("win-sdn-01");
        assertThat(c.kubeconfig()).isEqualTo("c:\\k\\config");
        assertThat(c.enableDsr()).isTrue();
        assertThat(c.featureGates().enabled("WinDSR")).isTrue();
        assertThat(c.networkName()).isEqualTo("l2bridge");
        assertThat(c.sourceVip()).isEqualTo("192.168.1.2");
        assertMatchesGolden(c, "sdn-helper-dsr.expected.yaml");
    }

    @Test
    void newerTopLevelSyncPeriodsAndBareServerAddressesAreUnderstood() throws Exception {
        ProxyConfig c = KubeProxyConfigurationFile.read(resource("newer-top-level-sync.yaml"), ENV, HOST);
        assertThat(c.syncPeriod()).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.minSyncPeriod()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.healthzBindAddress()).isEqualTo("10.0.0.4:10256");
        assertThat(c.metricsBindAddress()).isEqualTo("0.0.0.0:9100");
        assertThat(c.windowsService()).isTrue();
        assertThat(c.rootHnsEndpointName()).isEqualTo("cbr1");
        assertThat(c.forwardHealthCheckVip()).isTrue();
    }

    @Test
    void theCalicoLauncherFlagsAreWrittenAsKubeProxyWouldWriteThem() throws Exception {
        ProxyConfig c = ConfigResolver.resolve(ProxyFlags.parse("--hostname-override=WIN-W1", "--v=4",
                "--proxy-mode=kernelspace", "--kubeconfig=C:\\k\\config", "--enable-dsr=true",
                "--feature-gates=WinDSR=true,WinOverlay=true", "--source-vip=10.244.1.5",
                "--write-config-to=" + dir.resolve("out.yaml")), ENV, () -> HOST);
        KubeProxyConfigurationFile.write(c, c.writeConfigTo().orElseThrow());
        assertThat(tree(Files.readString(dir.resolve("out.yaml"))))
                .isEqualTo(tree(Files.readString(resource("write-calico-flags.expected.yaml"))));
    }

    /**
     * Every field of {@code kubeproxy.config.k8s.io/v1alpha1 KubeProxyConfiguration} in Kubernetes v1.33
     * (staging/src/k8s.io/kube-proxy/config/v1alpha1/types.go), by path: what kube-proxy decodes strictly.
     */
    static final java.util.Set<String> V1ALPHA1_FIELDS = java.util.Set.of("apiVersion", "kind", "featureGates",
            "clientConnection.kubeconfig", "clientConnection.acceptContentTypes", "clientConnection.contentType",
            "clientConnection.qps", "clientConnection.burst", "logging.format", "logging.flushFrequency",
            "logging.verbosity", "logging.vmodule", "logging.options", "hostnameOverride", "bindAddress",
            "healthzBindAddress", "metricsBindAddress", "bindAddressHardFail", "enableProfiling",
            "showHiddenMetricsForVersion", "mode", "iptables.masqueradeBit", "iptables.masqueradeAll",
            "iptables.localhostNodePorts", "iptables.syncPeriod", "iptables.minSyncPeriod", "ipvs.syncPeriod",
            "ipvs.minSyncPeriod", "ipvs.scheduler", "ipvs.excludeCIDRs", "ipvs.strictARP", "ipvs.tcpTimeout",
            "ipvs.tcpFinTimeout", "ipvs.udpTimeout", "nftables.masqueradeBit", "nftables.masqueradeAll",
            "nftables.syncPeriod", "nftables.minSyncPeriod", "winkernel.networkName", "winkernel.sourceVip",
            "winkernel.enableDSR", "winkernel.rootHnsEndpointName", "winkernel.forwardHealthCheckVip",
            "detectLocalMode", "detectLocal.bridgeInterface", "detectLocal.interfaceNamePrefix", "clusterCIDR",
            "nodePortAddresses", "oomScoreAdj", "conntrack.maxPerCore", "conntrack.min",
            "conntrack.tcpEstablishedTimeout", "conntrack.tcpCloseWaitTimeout", "conntrack.tcpBeLiberal",
            "conntrack.udpTimeout", "conntrack.udpStreamTimeout", "configSyncPeriod", "portRange",
            "windowsRunAsService");

    private static java.util.Set<String> paths(JsonNode root) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        root.properties().forEach(top -> {
            boolean section = top.getValue().isObject() && !top.getKey().equals("featureGates")
                    && !top.getKey().equals("logging");
            if (section || top.getKey().equals("logging")) {
                top.getValue().properties().forEach(leaf -> out.add(top.getKey() + "." + leaf.getKey()));
            } else {
                out.add(top.getKey());
            }
        });
        return out;
    }

    @Test
    void writeConfigToWritesOnlyV1alpha1FieldsSoKubeProxyReadsTheFileStrictly() throws Exception {
        ProxyConfig defaults = ConfigResolver.resolve(ProxyFlags.parse("--feature-gates=WinDSR=true"), ENV,
                () -> HOST);
        java.util.Set<String> written = paths(tree(KubeProxyConfigurationFile.render(defaults)));
        assertThat(V1ALPHA1_FIELDS).containsAll(written);
        assertThat(written).doesNotContain("serviceProxyName").contains("winkernel.enableDSR", "iptables.syncPeriod");
    }

    @Test
    void winproxysServiceProxyNameIsWrittenOnlyWhenSetAndReadBack() throws Exception {
        Path in = dir.resolve("in.yaml");
        Files.writeString(in, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"
                + "serviceProxyName: winproxy-canary\n");
        ProxyConfig config = KubeProxyConfigurationFile.read(in, ENV, HOST);
        Path out = dir.resolve("out.yaml");
        KubeProxyConfigurationFile.write(config, out);
        assertThat(tree(Files.readString(out)).path("serviceProxyName").asText()).isEqualTo("winproxy-canary");
        assertThat(KubeProxyConfigurationFile.read(out, ENV, HOST).serviceProxyName()).isEqualTo("winproxy-canary");
    }

    @Test
    void writingThenReadingGivesTheSameConfiguration() throws Exception {
        ProxyConfig original = ConfigResolver.resolve(ProxyFlags.parse("--hostname-override=n1",
                "--network-name=azure", "--source-vip=10.1.2.3", "--enable-dsr", "--root-hnsendpoint-name=ep0",
                "--forward-healthcheck-vip", "--feature-gates=WinDSR=true,AllAlpha=false",
                "--cluster-cidr=10.244.0.0/16,fd00::/56", "--kubeconfig=c:\\k\\config", "--kube-api-qps=7.5",
                "--kube-api-burst=15", "--kube-api-content-type=application/json", "--bind-address=10.0.0.9",
                "--bind-address-hard-fail", "--healthz-bind-address=10.0.0.9:1234",
                "--metrics-bind-address=0.0.0.0:9999", "--iptables-sync-period=45s",
                "--iptables-min-sync-period=500ms", "--config-sync-period=20m", "--nodeport-addresses=10.0.0.0/8",
                "--profiling", "--show-hidden-metrics-for-version=1.32", "--windows-service", "--v=5",
                "--vmodule=io.winproxy.agent.sync=6", "--logging-format=json", "--masquerade-all",
                "--iptables-masquerade-bit=10", "--oom-score-adj=-100", "--conntrack-min=5",
                "--ipvs-exclude-cidrs=10.9.0.0/16", "--ipvs-strict-arp", "--detect-local-mode=NodeCIDR"), ENV,
                () -> HOST);
        Path f = dir.resolve("round-trip.yaml");
        KubeProxyConfigurationFile.write(original, f);
        ProxyConfig back = KubeProxyConfigurationFile.read(f, ENV, HOST);
        assertThat(comparable(back)).isEqualTo(comparable(original));
        assertThat(back.warnings()).allMatch(w -> w.startsWith("Setting GA") || w.startsWith("running as")
                || w.startsWith("KubeProxyConfiguration.") && w.contains("has no effect"));
    }

    @Test
    void defaultsSurviveARoundTrip() throws Exception {
        ProxyConfig original = ConfigResolver.resolve(new ProxyFlags(), ENV, () -> HOST);
        Path f = dir.resolve("defaults.yaml");
        KubeProxyConfigurationFile.write(original, f);
        assertThat(comparable(KubeProxyConfigurationFile.read(f, ENV, HOST))).isEqualTo(comparable(original));
    }

    @Test
    void goldenFilesReadBackToTheConfigurationTheyDescribe() throws Exception {
        for (String golden : List.of("kubeadm-windows-overlay.expected.yaml", "sdn-helper-dsr.expected.yaml",
                "write-calico-flags.expected.yaml")) {
            ProxyConfig c = KubeProxyConfigurationFile.read(resource(golden), ENV, HOST);
            assertMatchesGolden(c, golden);
        }
    }

    @Test
    void unknownAndDuplicateFieldsFallBackToLenientDecodingWithAWarning() throws Exception {
        ProxyConfig c = KubeProxyConfigurationFile.read(resource("unknown-and-duplicate-fields.yaml"), ENV, HOST);
        assertThat(c.networkName()).isEqualTo("second");
        assertThat(c.enableDsr()).isFalse();
        assertThat(c.warnings()).singleElement().asString()
                .startsWith("Using lenient decoding as strict decoding failed: strict decoding error: ")
                .contains("Duplicate field 'networkName'")
                .contains("unknown field \"resourceContainer\"")
                .contains("unknown field \"winkernel.enableDsr\"");
    }

    @Test
    void valuesOfTheWrongTypeAreFatalAndNameEveryField() {
        Path f = resource("wrong-type.yaml");
        assertThatThrownBy(() -> KubeProxyConfigurationFile.read(f, ENV, HOST))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).errors()).containsExactly(
                        "failed to decode config file \"" + f + "\": KubeProxyConfiguration.winkernel.enableDSR:"
                                + " cannot decode \"maybe\" as a bool",
                        "failed to decode config file \"" + f + "\": KubeProxyConfiguration.iptables.syncPeriod:"
                                + " cannot decode 30 as a duration",
                        "failed to decode config file \"" + f + "\": KubeProxyConfiguration.clientConnection.burst:"
                                + " cannot decode \"lots\" as an int32"));
    }

    @Test
    void aBadDurationInTheFileNamesTheField() throws Exception {
        Path f = dir.resolve("bad-duration.yaml");
        Files.writeString(f, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"
                + "configSyncPeriod: soon\n");
        assertThatThrownBy(() -> KubeProxyConfigurationFile.read(f, ENV, HOST))
                .hasMessage("failed to decode config file \"" + f + "\": KubeProxyConfiguration.configSyncPeriod:"
                        + " time: invalid duration \"soon\"");
    }

    @Test
    void anotherKindIsRejected() {
        Path f = resource("wrong-kind.yaml");
        assertThatThrownBy(() -> KubeProxyConfigurationFile.read(f, ENV, HOST))
                .hasMessageStartingWith("failed to decode config file \"" + f + "\": no kind \"KubeletConfiguration\""
                        + " is registered for version \"kubelet.config.k8s.io/v1beta1\"");
    }

    @Test
    void aFileWithoutKindIsRejected() throws Exception {
        Path f = dir.resolve("nokind.yaml");
        Files.writeString(f, "mode: kernelspace\n");
        assertThatThrownBy(() -> KubeProxyConfigurationFile.read(f, ENV, HOST))
                .hasMessage("failed to decode config file \"" + f + "\": Object 'Kind' is missing");
    }

    @Test
    void textThatIsNotYamlIsRejectedInOneLine() throws Exception {
        Path f = dir.resolve("broken.yaml");
        Files.writeString(f, "apiVersion: [unclosed\n  kind: {\n");
        assertThatThrownBy(() -> KubeProxyConfigurationFile.read(f, ENV, HOST))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("failed to decode config file \"" + f + "\": ")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void theJsonRenderingIsTheSameDocumentOnOneLine() throws Exception {
        ProxyConfig c = KubeProxyConfigurationFile.read(resource("sdn-helper-dsr.json"), ENV, HOST);
        String json = KubeProxyConfigurationFile.renderJson(c);
        assertThat(json).doesNotContain("\n").startsWith("{\"apiVersion\":\"kubeproxy.config.k8s.io/v1alpha1\"");
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(json))
                .isEqualTo(tree(KubeProxyConfigurationFile.render(c)));
    }

    @Test
    void aPowerShellWrittenUtf16FileWithByteOrderMarkIsRead() throws Exception {
        byte[] json = Files.readAllBytes(resource("sdn-helper-dsr.json"));
        String text = new String(json, java.nio.charset.StandardCharsets.UTF_8).replace("\n", "\r\n");
        Path f = dir.resolve("utf16.json");
        Files.write(f, ("\uFEFF" + text).getBytes(java.nio.charset.StandardCharsets.UTF_16LE));
        assertThat(KubeProxyConfigurationFile.read(f, ENV, HOST).networkName()).isEqualTo("l2bridge");
        Path utf8 = dir.resolve("utf8bom.yaml");
        Files.write(utf8, ("\uFEFFapiVersion: kubeproxy.config.k8s.io/v1alpha1\r\nkind: KubeProxyConfiguration\r\n"
                + "winkernel:\r\n  networkName: x\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(KubeProxyConfigurationFile.read(utf8, ENV, HOST).networkName()).isEqualTo("x");
    }

    @Test
    void writingReplacesAnExistingFile() throws Exception {
        Path f = dir.resolve("sub/dir/config.yaml");
        ProxyConfig c = ConfigResolver.resolve(new ProxyFlags(), ENV, () -> HOST);
        KubeProxyConfigurationFile.write(c, f);
        KubeProxyConfigurationFile.write(c, f);
        assertThat(Files.readString(f)).startsWith("apiVersion: kubeproxy.config.k8s.io/v1alpha1\n");
        try (var files = Files.list(f.getParent())) {
            assertThat(files).containsExactly(f);
        }
    }
}
