package io.winproxy.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The full kube-proxy command line of every Windows launcher in windows-operations.md §1.1, written verbatim
 * (quotes included; script variables replaced by sample values), resolves without an error and with kube-proxy's
 * meaning. Each line is fed twice: split as Windows splits a command line (the quotes are consumed), and split only
 * at blanks (the quotes reach the program, as when a launcher quotes twice); both must give the same configuration.
 */
class LauncherCommandLinesTest {

    record Launcher(String name, String commandLine, Map<String, String> env, Consumer<ProxyConfig> check) {
        @Override
        public String toString() {
            return name;
        }
    }

    static String resource(String name) {
        try {
            return Path.of(LauncherCommandLinesTest.class.getResource("/config/" + name).toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<Launcher> launchers() {
        return Stream.of(
                new Launcher("sig-windows-tools HostProcess, Calico (start.ps1, overlay with DSR)",
                        "--hostname-override=WIN-W1 --v=4 --proxy-mode=kernelspace"
                                + " --kubeconfig=C:\\C\\0123\\var\\lib\\kube-proxy\\kubeconfig-win.conf"
                                + " --enable-dsr=true --feature-gates=WinDSR=true,WinOverlay=true"
                                + " --source-vip=10.244.1.2",
                        Map.of("KUBE_NETWORK", "Calico"), c -> {
                            assertThat(c.hostnameOverride()).isEqualTo("win-w1");
                            assertThat(c.logging().verbosity()).isEqualTo(4);
                            assertThat(c.kubeconfig()).isEqualTo("C:\\C\\0123\\var\\lib\\kube-proxy\\kubeconfig-win.conf");
                            assertThat(c.enableDsr()).isTrue();
                            assertThat(c.featureGates().enabled("WinDSR")).isTrue();
                            assertThat(c.featureGates().enabled("WinOverlay")).isTrue();
                            assertThat(c.sourceVip()).isEqualTo("10.244.1.2");
                            assertThat(c.networkName()).isEqualTo("Calico");
                        }),
                new Launcher("sig-windows-tools HostProcess, Flannel",
                        "--v=6 --hostname-override=win-w2 --feature-gates=WinOverlay=true --proxy-mode=kernelspace"
                                + " --source-vip=10.244.2.2"
                                + " --kubeconfig=C:\\C\\0123\\mounts\\var\\lib\\kube-proxy\\kubeconfig-win.conf",
                        Map.of("KUBE_NETWORK", "flannel.4096"), c -> {
                            assertThat(c.logging().verbosity()).isEqualTo(6);
                            assertThat(c.networkName()).isEqualTo("flannel.4096");
                            assertThat(c.enableDsr()).isFalse();
                            assertThat(c.sourceVip()).isEqualTo("10.244.2.2");
                        }),
                new Launcher("sig-windows-tools kubeadm era (wins, config.conf edited with yq)",
                        "--v=6 --config=" + resource("kubeadm-windows-overlay.yaml")
                                + " --hostname-override=win-w3 --feature-gates=WinOverlay=true",
                        Map.of(), c -> {
                            assertThat(c.hostnameOverride()).isEqualTo("win-w3");
                            assertThat(c.logging().verbosity()).isEqualTo(6);
                            assertThat(c.networkName()).isEqualTo("vxlan0");
                            assertThat(c.sourceVip()).isEqualTo("10.244.1.0");
                            assertThat(c.featureGates().enabled("WinOverlay")).isTrue();
                            assertThat(c.kubeconfig()).isEqualTo("/var/lib/kube-proxy/kubeconfig.conf");
                        }),
                new Launcher("microsoft/SDN windows/start-kubeproxy.ps1 (l2bridge)",
                        "--v=4 --proxy-mode=kernelspace --hostname-override=WIN-W4 --kubeconfig=c:\\k\\config"
                                + " --log-dir=C:\\k --logtostderr=false",
                        Map.of("KUBE_NETWORK", "cbr0"), c -> {
                            assertThat(c.networkName()).isEqualTo("cbr0");
                            assertThat(c.logging().logToStderr()).isFalse();
                            assertThat(c.logging().klogDirectory()).contains(Path.of("C:\\k"));
                        }),
                new Launcher("microsoft/SDN flannel/start-kubeproxy.ps1 (l2bridge)",
                        "--v=4 --proxy-mode=kernelspace --hostname-override=WIN-W5 --kubeconfig=c:\\k\\config"
                                + " --cluster-cidr=10.244.0.0/16 --log-dir=C:\\k --logtostderr=false",
                        Map.of("KUBE_NETWORK", "cbr0"), c ->
                                assertThat(c.clusterCidrs()).containsExactly("10.244.0.0/16")),
                new Launcher("microsoft/SDN flannel/start-kubeproxy.ps1 (overlay)",
                        "--v=4 --proxy-mode=kernelspace --hostname-override=WIN-W5 --kubeconfig=c:\\k\\config"
                                + " --feature-gates=\"WinOverlay=true\" --network-name=vxlan0"
                                + " --source-vip=10.244.5.3 --enable-dsr=false --cluster-cidr=10.244.0.0/16"
                                + " --log-dir=C:\\k --logtostderr=false",
                        Map.of("KUBE_NETWORK", "cbr0"), c -> {
                            assertThat(c.networkName()).isEqualTo("vxlan0");
                            assertThat(c.featureGates().explicit()).containsExactly(Map.entry("WinOverlay", true));
                            assertThat(c.enableDsr()).isFalse();
                            assertThat(c.kubeconfig()).isEqualTo("c:\\k\\config");
                        }),
                new Launcher("microsoft/SDN helper.v2.psm1 InstallKubeProxy (service wrapper)",
                        "--hostname-override=WIN-W6 --v=4 --proxy-mode=kernelspace --kubeconfig=C:\\k\\config"
                                + " --network-name=vxlan0 --cluster-cidr=10.244.0.0/16"
                                + " --log-dir=C:\\k\\logs\\kube-proxy --logtostderr=false"
                                + " --feature-gates=WinDSR=true,WinOverlay=true --enable-dsr=true"
                                + " --source-vip=10.244.6.2",
                        Map.of(), c -> {
                            assertThat(c.enableDsr()).isTrue();
                            assertThat(c.logging().klogDirectory())
                                    .contains(Path.of("C:\\k\\logs\\kube-proxy"));
                        }),
                new Launcher("Calico for Windows manual install (nssm, kube-proxy-service.ps1)",
                        "--hostname-override=win-w7 --v=4 --proxy-mode=kernelspace --kubeconfig=\"c:\\k\\config\""
                                + " --enable-dsr=true --feature-gates=WinDSR=true,WinOverlay=true"
                                + " --source-vip=10.244.7.2",
                        Map.of("KUBE_NETWORK", "Calico"), c -> {
                            assertThat(c.kubeconfig()).isEqualTo("c:\\k\\config");
                            assertThat(c.enableDsr()).isTrue();
                        }),
                new Launcher("AKS kubeproxystart.ps1 (old cluster, IPv6DualStack still in the gate list)",
                        "--v=3 --proxy-mode=kernelspace --hostname-override=akswin000000 --kubeconfig=c:\\k\\config"
                                + " --enable-dsr=true --feature-gates=WinDSR=true,IPv6DualStack=true",
                        Map.of("KUBE_NETWORK", "azure"), c -> {
                            assertThat(c.networkName()).isEqualTo("azure");
                            assertThat(c.logging().verbosity()).isEqualTo(3);
                            assertThat(c.warnings()).anyMatch(w -> w.contains("IPv6DualStack"));
                        }),
                new Launcher("OpenShift WMCO (sc.exe binPath: kube-proxy.exe --config <file> --windows-service)",
                        "--config " + resource("wmco-kube-proxy.yaml") + " --windows-service",
                        Map.of(), c -> {
                            assertThat(c.windowsService()).isTrue();
                            assertThat(c.hostnameOverride()).isEqualTo("winworker-abcde");
                            assertThat(c.networkName()).isEqualTo("OVNKubernetesHybridOverlayNetwork");
                            assertThat(c.sourceVip()).isEqualTo("10.132.1.2");
                            assertThat(c.enableDsr()).isTrue();
                            assertThat(c.forwardHealthCheckVip()).isFalse();
                            assertThat(c.featureGates().enabled("WinDSR")).isTrue();
                            assertThat(c.clusterCidrs()).containsExactly("10.128.0.0/14");
                            assertThat(c.kubeconfig()).isEqualTo("C:\\k\\kubeconfig");
                            assertThat(c.logging().verbosity()).isZero();
                            assertThat(c.syncPeriod()).isEqualTo(Duration.ofSeconds(30));
                        }),
                new Launcher("EKS DSR variant (EKS-WindowsServiceHost.exe)",
                        "--kubeconfig=C:\\ProgramData\\kubernetes\\kubeconfig --v=1 --proxy-mode=kernelspace"
                                + " --hostname-override=ip-10-0-1-23.ec2.internal --feature-gates=\"WinDSR=true\""
                                + " --enable-dsr=true --cluster-cidr=10.0.0.0/16 --logtostderr=true",
                        Map.of("KUBE_NETWORK", "vpcbr*"), c -> {
                            assertThat(c.hostnameOverride()).isEqualTo("ip-10-0-1-23.ec2.internal");
                            assertThat(c.featureGates().explicit()).containsEntry("WinDSR", true);
                            assertThat(c.logging().logToStderr()).isTrue();
                        }),
                new Launcher("upstream native service mode, Windows-only flags and the defaults seen in logs",
                        "--windows-service --windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS"
                                + " --root-hnsendpoint-name=cbr0 --forward-healthcheck-vip=true"
                                + " --metrics-bind-address=127.0.0.1:10249 --healthz-bind-address=0.0.0.0:10256"
                                + " --hostname-override=win-w9 --resource-container=\"\"",
                        Map.of("KUBE_NETWORK", "cbr0"), c -> {
                            assertThat(c.windowsService()).isTrue();
                            assertThat(c.windowsPriorityClass()).isEqualTo("ABOVE_NORMAL_PRIORITY_CLASS");
                            assertThat(c.rootHnsEndpointName()).isEqualTo("cbr0");
                            assertThat(c.forwardHealthCheckVip()).isTrue();
                            assertThat(c.metricsBindAddress()).isEqualTo("127.0.0.1:10249");
                            assertThat(c.healthzBindAddress()).isEqualTo("0.0.0.0:10256");
                            assertThat(c.warnings()).contains(
                                    "flag --resource-container is deprecated or removed in kube-proxy and has no"
                                            + " effect");
                        }));
    }

    static ProxyConfig resolve(String[] args, Map<String, String> env) throws ConfigException {
        return ConfigResolver.resolve(ProxyFlags.parse(args), env, () -> "WIN-MACHINE");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("launchers")
    void theLaunchersCommandLineResolvesWithKubeProxysMeaning(Launcher launcher) throws ConfigException {
        ProxyConfig config = resolve(WindowsCommandLine.split(launcher.commandLine()), launcher.env());

        launcher.check().accept(config);
        assertThat(config.mode()).isEqualTo("kernelspace");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("launchers")
    void quotesThatReachTheProgramChangeNothing(Launcher launcher) throws ConfigException {
        String[] asTyped = launcher.commandLine().split(" ");

        assertThat(resolve(asTyped, launcher.env()))
                .isEqualTo(resolve(WindowsCommandLine.split(launcher.commandLine()), launcher.env()));
    }
}
