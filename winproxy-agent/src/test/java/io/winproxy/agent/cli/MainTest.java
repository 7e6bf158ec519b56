package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exit codes and one-line errors of the command line. */
class MainTest {
    @TempDir
    Path dir;

    @Test
    void anUnknownFlagExitsWith2AndOneLineNamingIt() {
        CliRunner.Result r = CliRunner.run("--no-such-flag=1");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("--no-such-flag").doesNotContain("at io.winproxy");
    }

    @Test
    void anInvalidFlagValueExitsWith2NamingTheFlag() {
        CliRunner.Result r = CliRunner.run("--hostname-override=a", "--network-name=n",
                "--iptables-sync-period=banana");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("--iptables-sync-period");
    }

    @Test
    void runningWithoutANetworkNameExitsWith2NamingKubeNetwork() {
        CliRunner.Result r = CliRunner.run(Map.of(), "--hostname-override=a", "--hns=emulated");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("KUBE_NETWORK").contains("--network-name");
    }

    @Test
    void enableDsrWithTheGateOffExitsWith2NamingTheGate() {
        CliRunner.Result r = CliRunner.run("plan", "--manifests", SyncCluster.dir().toString(),
                "--hostname-override=win-a", "--enable-dsr", "--feature-gates=WinDSR=false", "-o", "json");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("WinDSR");
    }

    @Test
    void aMissingManifestsDirectoryExitsWith2NamingTheOption() {
        CliRunner.Result r = CliRunner.run("plan", "--manifests", dir.resolve("nope").toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("--manifests");
    }

    @Test
    void aTraceDestinationWithoutPortExitsWith2() {
        CliRunner.Result r = CliRunner.run("trace", "--src", "10.0.0.1", "--dst", "10.96.0.10");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("--dst");
    }

    @Test
    void aTraceWithoutItsRequiredOptionsExitsWith2() {
        CliRunner.Result r = CliRunner.run("trace", "--dst", "10.96.0.10:53");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("--src");
    }

    @Test
    void anUnknownHnsObjectKindExitsWith2() {
        CliRunner.Result r = CliRunner.run("hns", "delete", "policy", "abc", "--hns-state",
                dir.resolve("h.json").toString(), "--state-dir", dir.toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("load-balancer or endpoint");
    }

    @Test
    void anUnexplainableDocumentExitsWith2() throws Exception {
        Path doc = Files.writeString(dir.resolve("doc.json"), "{\"hello\": 1}");
        CliRunner.Result r = CliRunner.run("hns", "explain", doc.toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
    }

    @Test
    void versionPrintsTheVersionAndExits0() {
        CliRunner.Result r = CliRunner.run("version");
        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).startsWith("winproxy ");
    }

    @Test
    void writeConfigToWritesTheFileAndExits0() {
        Path target = dir.resolve("kube-proxy.yaml");
        CliRunner.Result r = CliRunner.run("--hostname-override=win-a", "--network-name=overlay",
                "--write-config-to=" + target);
        assertThat(r.exitCode()).isZero();
        assertThat(target).exists().content().contains("KubeProxyConfiguration");
    }

    @Test
    void windowsHnsOnLinuxExitsWith2() {
        org.junit.jupiter.api.Assumptions.assumeFalse(HnsHostOptions.isWindows());
        CliRunner.Result r = CliRunner.run("hns", "list", "--hns=windows");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("--hns");
    }

    @Test
    void versionPrintsExactlyTheOneLineKubeProxyPrints() {
        CliRunner.Result r = CliRunner.run("--version");
        assertThat(r.exitCode()).as(r.err()).isZero();
        // Calico's launcher scripts run $(kube-proxy.exe --version) -match 'v(\d+)\.(\d+)': a second line would make
        // PowerShell capture an array, fill no $Matches and turn DSR off.
        assertThat(r.out()).isEqualTo("Kubernetes " + VersionCommand.KUBERNETES_VERSION + System.lineSeparator());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("v(\\d+)\\.(\\d+)").matcher(r.out());
        assertThat(m.find()).isTrue();
        assertThat(m.group(1) + "." + m.group(2)).isEqualTo("1.33");
        // A launcher's other flags do not matter: the version is printed before the configuration is resolved.
        assertThat(CliRunner.run("--version=true", "--proxy-mode=kernelspace").out())
                .isEqualTo("Kubernetes " + VersionCommand.KUBERNETES_VERSION + System.lineSeparator());
    }

    @Test
    void versionRawPrintsTheVersionInfoFormWithWinproxysVersionAsGitCommit() {
        CliRunner.Result r = CliRunner.run("--version=raw");
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out().lines()).hasSize(1);
        assertThat(r.out()).startsWith("version.Info{Major:\"1\", Minor:\"33\", EmulationMajor:\"\", ")
                .contains("GitVersion:\"" + VersionCommand.KUBERNETES_VERSION + "\", GitCommit:\"winproxy-"
                        + VersionCommand.version() + "\"")
                .contains("Compiler:\"winproxy\"").contains("Platform:\"");
    }

    @Test
    void theVersionSubcommandPrintsWinproxysOwnVersion() {
        CliRunner.Result r = CliRunner.run("version");
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out().strip()).isEqualTo("winproxy " + VersionCommand.version() + " (kube-proxy "
                + VersionCommand.KUBERNETES_VERSION + ", java " + System.getProperty("java.version") + ")");
    }

    @Test
    void anInvalidVersionValueIsOneLineAndExit2() {
        CliRunner.Result r = CliRunner.run("--version=yes-please");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("winproxy: --version: invalid value \"yes-please\" (want true, false or raw)");
    }
}
