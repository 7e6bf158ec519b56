package io.winproxy.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every launcher command line of winproxy-agent's LauncherCommandLinesTest (windows-operations.md §1.1), replayed
 * through kube-proxy.exe's argument handling: the launcher runs {@code <path>\kube-proxy.exe <line>}, kube-proxy.exe
 * skips its own name and re-quotes the rest, and the agent's JVM splits that text. The agent must receive exactly the
 * argv that LauncherCommandLinesTest resolves (the line split by the agent's reference rules). The lines are copied
 * verbatim; the two that name a test resource there name a sample path here.
 */
class CommandLineLaunchersReplayTest {

    record Launcher(String name, String commandLine) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final List<Launcher> LAUNCHERS = List.of(
            new Launcher("sig-windows-tools HostProcess, Calico (start.ps1, overlay with DSR)",
                    "--hostname-override=WIN-W1 --v=4 --proxy-mode=kernelspace"
                            + " --kubeconfig=C:\\C\\0123\\var\\lib\\kube-proxy\\kubeconfig-win.conf"
                            + " --enable-dsr=true --feature-gates=WinDSR=true,WinOverlay=true"
                            + " --source-vip=10.244.1.2"),
            new Launcher("sig-windows-tools HostProcess, Flannel",
                    "--v=6 --hostname-override=win-w2 --feature-gates=WinOverlay=true --proxy-mode=kernelspace"
                            + " --source-vip=10.244.2.2"
                            + " --kubeconfig=C:\\C\\0123\\mounts\\var\\lib\\kube-proxy\\kubeconfig-win.conf"),
            new Launcher("sig-windows-tools kubeadm era (wins, config.conf edited with yq)",
                    "--v=6 --config=C:\\var\\lib\\kube-proxy\\config.conf"
                            + " --hostname-override=win-w3 --feature-gates=WinOverlay=true"),
            new Launcher("microsoft/SDN windows/start-kubeproxy.ps1 (l2bridge)",
                    "--v=4 --proxy-mode=kernelspace --hostname-override=WIN-W4 --kubeconfig=c:\\k\\config"
                            + " --log-dir=C:\\k --logtostderr=false"),
            new Launcher("microsoft/SDN flannel/start-kubeproxy.ps1 (l2bridge)",
                    "--v=4 --proxy-mode=kernelspace --hostname-override=WIN-W5 --kubeconfig=c:\\k\\config"
                            + " --cluster-cidr=10.244.0.0/16 --log-dir=C:\\k --logtostderr=false"),
            new Launcher("microsoft/SDN flannel/start-kubeproxy.ps1 (overlay)",
                    "--v=4 --proxy-mode=kernelspace --hostname-override=WIN-W5 --kubeconfig=c:\\k\\config"
                            + " --feature-gates=\"WinOverlay=true\" --network-name=vxlan0"
                            + " --source-vip=10.244.5.3 --enable-dsr=false --cluster-cidr=10.244.0.0/16"
                            + " --log-dir=C:\\k --logtostderr=false"),
            new Launcher("microsoft/SDN helper.v2.psm1 InstallKubeProxy (service wrapper)",
                    "--hostname-override=WIN-W6 --v=4 --proxy-mode=kernelspace --kubeconfig=C:\\k\\config"
                            + " --network-name=vxlan0 --cluster-cidr=10.244.0.0/16"
                            + " --log-dir=C:\\k\\logs\\kube-proxy --logtostderr=false"
                            + " --feature-gates=WinDSR=true,WinOverlay=true --enable-dsr=true"
                            + " --source-vip=10.244.6.2"),
            new Launcher("Calico for Windows manual install (nssm, kube-proxy-service.ps1)",
                    "--hostname-override=win-w7 --v=4 --proxy-mode=kernelspace --kubeconfig=\"c:\\k\\config\""
                            + " --enable-dsr=true --feature-gates=WinDSR=true,WinOverlay=true"
                            + " --source-vip=10.244.7.2"),
            new Launcher("AKS kubeproxystart.ps1 (old cluster, IPv6DualStack still in the gate list)",
                    "--v=3 --proxy-mode=kernelspace --hostname-override=akswin000000 --kubeconfig=c:\\k\\config"
                            + " --enable-dsr=true --feature-gates=WinDSR=true,IPv6DualStack=true"),
            new Launcher("OpenShift WMCO (behind kube-log-runner.exe: --config ... --windows-service)",
                    "--config C:\\k\\kube-proxy.conf --windows-service"),
            new Launcher("EKS DSR variant (EKS-WindowsServiceHost.exe)",
                    "--kubeconfig=C:\\ProgramData\\kubernetes\\kubeconfig --v=1 --proxy-mode=kernelspace"
                            + " --hostname-override=ip-10-0-1-23.ec2.internal --feature-gates=\"WinDSR=true\""
                            + " --enable-dsr=true --cluster-cidr=10.0.0.0/16 --logtostderr=true"),
            new Launcher("upstream native service mode, Windows-only flags and the defaults seen in logs",
                    "--windows-service --windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS"
                            + " --root-hnsendpoint-name=cbr0 --forward-healthcheck-vip=true"
                            + " --metrics-bind-address=127.0.0.1:10249 --healthz-bind-address=0.0.0.0:10256"
                            + " --hostname-override=win-w9 --resource-container=\"\""));

    /** How the launchers name the binary: a bare path, a quoted one, one with a blank, RKE2's bin folder. */
    static final List<String> PROGRAM_NAMES = List.of(
            "c:\\k\\kube-proxy.exe",
            "\"C:\\k\\kube-proxy.exe\"",
            "\"C:\\Program Files\\Kubernetes\\kube-proxy.exe\"",
            "C:\\var\\lib\\rancher\\rke2\\bin\\kube-proxy.exe");

    static Stream<Arguments> replays() {
        return LAUNCHERS.stream().flatMap(launcher -> PROGRAM_NAMES.stream()
                .map(program -> Arguments.of(launcher, program)));
    }

    @ParameterizedTest(name = "{0} via {1}")
    @MethodSource("replays")
    void theAgentGetsTheArgvItsLauncherTestResolves(Launcher launcher, String program) {
        List<String> resolvedByTheAgentTest = Arrays.asList(AgentCommandLineReference.split(launcher.commandLine()));
        String full = program + " " + launcher.commandLine();

        String toTheAgent = NativeCommandLine.forward(full);

        assertThat(Arrays.asList(AgentCommandLineReference.split(toTheAgent))).isEqualTo(resolvedByTheAgentTest);
        assertThat(CommandLineToArgv.split(toTheAgent)).isEqualTo(resolvedByTheAgentTest);
        assertThat(CommandLineToArgv.arguments(full)).as("what kube-proxy.exe (Go) received")
                .isEqualTo(resolvedByTheAgentTest);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("launchersOnly")
    void argumentsThatNeedNoQuotesArePassedOnCharacterForCharacter(Launcher launcher) {
        String forwarded = NativeCommandLine.forward("C:\\k\\kube-proxy.exe " + launcher.commandLine());

        assertThat(forwarded).isEqualTo(String.join(" ", AgentCommandLineReference.split(launcher.commandLine())));
        assertThat(forwarded).doesNotContain("\"");
    }

    static Stream<Launcher> launchersOnly() {
        return LAUNCHERS.stream();
    }
}
