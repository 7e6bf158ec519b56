package io.winproxy.installer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the HostProcess DaemonSet's start script ({@code hostprocess\start.ps1}) in Windows PowerShell: its functions
 * (dot-sourced) on plain values, and the script itself up to the configuration errors it must report in one line
 * with exit code 2. Reaching HNS and host-local needs a node with a CNI and is not done here.
 */
@EnabledOnOs(OS.WINDOWS)
class HostProcessStartScriptWindowsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path SCRIPT = Path.of(System.getProperty("winproxy.root", ".."),
            "installer", "src", "dist", "hostprocess", "start.ps1").toAbsolutePath().normalize();

    @TempDir
    Path temp;

    @Test
    void theIpamRequestIsTheSigWindowsToolsDocumentForTheNetworkAndSubnet() throws Exception {
        JsonNode request = JSON.readTree(call("New-WinProxyIpamRequest -NetworkName 'flannel.4096' "
                + "-Subnet '10.244.1.0/24'").stdout());
        assertThat(request).isEqualTo(JSON.readTree("{\"cniVersion\":\"0.2.0\",\"name\":\"flannel.4096\",\"ipam\":"
                + "{\"type\":\"host-local\",\"ranges\":[[{\"subnet\":\"10.244.1.0/24\"}]],"
                + "\"dataDir\":\"/var/lib/cni/networks\"}}"));
    }

    @Test
    void theAddressOfAHostLocalResultIsItsFirstIpWithoutThePrefixLengthAndAnErrorResultHasNone() throws Exception {
        String result = "{\"cniVersion\":\"0.3.0\",\"ips\":[{\"version\":\"4\",\"address\":\"10.244.1.2/24\","
                + "\"gateway\":\"10.244.1.1\"}],\"dns\":{}}";
        assertThat(call("Get-WinProxyIpamAddress '" + result + "'").stdout()).isEqualTo("10.244.1.2");
        String error = "{\"code\":999,\"msg\":\"10.244.1.2 has been allocated to dummy\"}";
        assertThat(call("[string] (Get-WinProxyIpamAddress '" + error + "')").stdout()).isEmpty();
        assertThat(call("[string] (Get-WinProxyIpamAddress 'not json')").stdout()).isEmpty();
    }

    @Test
    void aCniZeroTwoResultIsReadFromIp4AndALaterResultFromItsFirstIpv4Entry() throws Exception {
        String v020 = "{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.244.1.7/24\",\"gateway\":\"10.244.1.1\"},\"dns\":{}}";
        assertThat(call("Get-WinProxyIpamAddress '" + v020 + "'").stdout()).isEqualTo("10.244.1.7");
        String v6First = "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"fd00::7/64\"},"
                + "{\"address\":\"10.244.1.8/24\"}]}";
        assertThat(call("Get-WinProxyIpamAddress '" + v6First + "'").stdout()).isEqualTo("10.244.1.8");
    }

    @Test
    void theCacheFileIsWrittenInTheZeroTwoShapeTheSigWindowsToolsScriptReads() throws Exception {
        String v030 = "{\"cniVersion\":\"0.3.0\",\"ips\":[{\"version\":\"4\",\"address\":\"10.244.1.2/24\","
                + "\"gateway\":\"10.244.1.1\"}],\"dns\":{}}";
        JsonNode cache = JSON.readTree(call("ConvertTo-WinProxySourceVipCache -Result '" + v030
                + "' -Address 10.244.1.2").stdout());
        assertThat(cache.path("ip4").path("ip").asText()).isEqualTo("10.244.1.2/24");
        assertThat(cache.path("cniVersion").asText()).isEqualTo("0.2.0");
        // What sig-windows-tools' flannel kube-proxy start script does with it: $json.ip4.ip.Split("/")[0].
        String v020 = "{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.244.1.7/24\"}}";
        assertThat(call("(ConvertTo-WinProxySourceVipCache -Result '" + v020 + "' -Address 10.244.1.7 | "
                + "ConvertFrom-Json).ip4.ip.Split('/')[0]").stdout()).isEqualTo("10.244.1.7");
    }

    @Test
    void dsrIsOnOnlyWhereTheCniConfigurationAllowsHairpinUnderDsr() throws Exception {
        String decide = "(Get-WinProxyDsrDecision -PassThrough @('--v=2') -Setting '' -ConfigFiles @(";
        String flannel = "[pscustomobject] @{ Name = '10-flannel.conf'; Text = '{\"type\":\"flannel\","
                + "\"delegate\":{\"type\":\"win-overlay\"}}' }";
        String loopback = "[pscustomobject] @{ Name = '10-flannel.conf'; Text = '{\"delegate\":{\"type\":"
                + "\"win-overlay\",\"loopbackDSR\": true}}' }";
        String calico = "[pscustomobject] @{ Name = '10-calico.conf'; Text = '{\"type\": \"calico\"}' }";
        String azure = "[pscustomobject] @{ Name = '10-azure.conflist'; Text = '{\"plugins\":[{\"type\":"
                + "\"azure-vnet\"}]}' }";
        assertThat(call(decide + flannel + ")).Flag -eq $null").stdout()).isEqualTo("True");
        assertThat(call(decide + flannel + ")).Reason").stdout()).startsWith("off: none of 10-flannel.conf");
        assertThat(call(decide + "))).Reason").stdout()).startsWith("off: no CNI configuration");
        for (String allowing : List.of(loopback, calico, azure)) {
            assertThat(call(decide + allowing + ")).Flag").stdout()).isEqualTo("--enable-dsr=true");
        }
        assertThat(call("(Get-WinProxyDsrDecision -PassThrough @('--enable-dsr=false') -Setting 'true' "
                + "-ConfigFiles @(" + calico + ")).Flag -eq $null").stdout()).as("the args' flag stands")
                .isEqualTo("True");
        assertThat(call("(Get-WinProxyDsrDecision -Setting 'false' -ConfigFiles @(" + calico + ")).Flag").stdout())
                .isEqualTo("--enable-dsr=false");
        assertThat(call("Get-WinProxyDsrDecision -Setting 'yes' -ConfigFiles @()").stderr())
                .contains("WINPROXY_ENABLE_DSR: not true, false or empty");
    }

    /**
     * A PowerShell statement that sets $n to the networks of a listing, from name/type pairs, e.g.
     * {@code networks("Calico", "Overlay")}; External gets the vSwitch subnet 192.168.255.0/30.
     */
    private static String networks(String... nameTypePairs) {
        List<String> items = new ArrayList<>();
        for (int i = 0; i < nameTypePairs.length; i += 2) {
            String subnet = "External".equals(nameTypePairs[i]) ? "192.168.255.0/30" : "10.244.1.0/24";
            items.add("{\"name\":\"" + nameTypePairs[i] + "\",\"type\":\"" + nameTypePairs[i + 1]
                    + "\",\"subnets\":[\"" + subnet + "\"]}");
        }
        return "$n = '[" + String.join(",", items) + "]' | ConvertFrom-Json; ";
    }

    @Test
    void theNetworkIsTheNamedOneOrTheOnlyOverlayOrL2BridgeOtherThanTheVSwitchs() throws Exception {
        String n = networks("nat", "NAT", "External", "L2Bridge", "winnet", "Overlay");
        assertThat(call(n + "(Select-WinProxyNetwork -Networks $n -Name '').name").stdout()).isEqualTo("winnet");
        assertThat(call(n + "(Select-WinProxyNetwork -Networks $n -Name 'NAT').type").stdout()).isEqualTo("NAT");
        assertThat(call(n + "(Select-WinProxyNetwork -Networks $n -Name 'External').name").stdout())
                .as("a name given is honoured, even External").isEqualTo("External");
        assertThat(call(n + "[string] (Select-WinProxyNetwork -Networks $n -Name 'Calico')").stdout())
                .as("not there yet: the caller waits").isEmpty();
    }

    @Test
    void withExternalAndCalicoCalicoIsChosenAndWithSeveralCniNetworksOneLineSaysWhich() throws Exception {
        assertThat(call(networks("External", "L2Bridge", "Calico", "L2Bridge")
                + "(Select-WinProxyNetwork -Networks $n -Name '').name").stdout()).isEqualTo("Calico");
        assertThat(call(networks("ext", "Transparent", "flannel.4096", "Overlay")
                + "(Select-WinProxyNetwork -Networks $n -Name '').name").stdout()).isEqualTo("flannel.4096");

        Run several = call(networks("cbr0", "L2Bridge", "External", "L2Bridge", "Calico", "Overlay")
                + "(Select-WinProxyNetwork -Networks $n -Name '').name");
        assertThat(several.stdout().lines().toList()).containsExactly("winproxy start: HNS has several CNI "
                + "networks (Calico, cbr0): using Calico, the first in the order Calico, flannel.4096, vxlan0, cbr0; "
                + "set WINPROXY_NETWORK_NAME to choose another", "Calico");
    }

    @Test
    void withOnlyExternalNothingIsChosenAndTheReasonSaysWhy() throws Exception {
        String n = networks("External", "L2Bridge");
        assertThat(call(n + "[string] (Select-WinProxyNetwork -Networks $n -Name '')").stdout()).isEmpty();
        assertThat(call(n + "Get-WinProxyNetworkWaitReason -Networks $n -Name ''").stdout()).isEqualTo(
                "waiting for the CNI's network: HNS has only External (L2Bridge); External is the network node "
                        + "preparation creates for the vSwitch, never the pods' network (set WINPROXY_NETWORK_NAME "
                        + "to name the CNI's network)");
        // The vSwitch network under another name is recognised by its subnet.
        assertThat(call("$n = '[{\"name\":\"boot\",\"type\":\"Overlay\",\"subnets\":[\"192.168.255.0/30\"]}]'"
                + " | ConvertFrom-Json; [string] (Select-WinProxyNetwork -Networks $n -Name '')").stdout()).isEmpty();
    }

    @Test
    void severalUnknownOverlayOrL2BridgeNetworksAreAnErrorNamingThem() throws Exception {
        Run several = call(networks("External", "L2Bridge", "podnet-a", "Overlay", "podnet-b", "L2Bridge")
                + "try { Select-WinProxyNetwork -Networks $n -Name '' } catch { "
                + "$_.Exception.Message; $_.Exception.Data['ExitCode'] }");
        assertThat(several.stdout().lines().toList()).containsExactly(
                "winproxy start: WINPROXY_NETWORK_NAME: HNS has several Overlay/L2Bridge networks (podnet-a, "
                        + "podnet-b) and none has a known CNI name; set WINPROXY_NETWORK_NAME to the one the CNI uses "
                        + "for pods", "2");
    }

    @Test
    void theStateDirectoryIsTheStateDirArgumentElseProgramDataWinproxy() throws Exception {
        assertThat(call("Get-WinProxyStateDirectory -PassThrough @('--v=2') -ProgramData 'C:\\PD'").stdout())
                .isEqualTo("C:\\PD\\winproxy");
        assertThat(call("Get-WinProxyStateDirectory -PassThrough @('--state-dir=D:\\s') -ProgramData 'C:\\PD'")
                .stdout()).isEqualTo("D:\\s");
        assertThat(call("Get-WinProxyStateDirectory -PassThrough @('--state-dir', 'D:\\t') -ProgramData 'C:\\PD'")
                .stdout()).isEqualTo("D:\\t");
    }

    @Test
    void theStateDirectoryIsCreatedOwnedByAdministratorsWithAProtectedSystemAndAdministratorsOnlyDacl()
            throws Exception {
        Path dir = temp.resolve("state");
        Run run = call("Protect-WinProxyStateDirectory -Path '" + dir + "'; $a = Get-Acl -LiteralPath '" + dir
                + "'; $a.AreAccessRulesProtected; "
                + "$a.GetOwner([System.Security.Principal.SecurityIdentifier]).Value; "
                + "($a.GetAccessRules($true, $true, [System.Security.Principal.SecurityIdentifier]) | "
                + "ForEach-Object { \"$($_.IdentityReference.Value) $($_.FileSystemRights) $($_.InheritanceFlags) "
                + "$($_.AccessControlType)\" } | Sort-Object) -join ';'");
        assumeTrue(!run.stderr().contains("cannot restrict the state directory"), "needs an elevated process");
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stdout().lines().toList()).containsExactly(
                "winproxy start: state directory " + dir + ": owner Administrators, access SYSTEM and "
                        + "Administrators only",
                "True", "S-1-5-32-544",
                "S-1-5-18 FullControl ContainerInherit, ObjectInherit Allow;"
                        + "S-1-5-32-544 FullControl ContainerInherit, ObjectInherit Allow");
    }

    @Test
    void theApiServerIsTheServerOfKubeadmsKubeProxyKubeconfig() throws Exception {
        Path kubeconfig = temp.resolve("kubeconfig.conf");
        Files.writeString(kubeconfig, String.join("\n", "apiVersion: v1", "kind: Config", "clusters:",
                "- cluster:", "    certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt",
                "    server: https://10.0.0.10:6443", "  name: default", "users:", "- name: default", "  user:",
                "    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token", ""), StandardCharsets.UTF_8);
        Run run = call("$s = Resolve-WinProxyApiServer -KubeadmKubeconfig '" + kubeconfig + "'; "
                + "\"$($s.Host) $($s.Port) $($s.Source)\"");
        assertThat(run.stdout()).isEqualTo("10.0.0.10 6443 kubeadm's kube-proxy ConfigMap");
    }

    @Test
    void withoutAnApiServerAddressTheScriptStopsWithOneLineAndExitCode2() throws Exception {
        Run run = script(Map.of("NODE_NAME", "win-1", "CONTAINER_SANDBOX_MOUNT_POINT", temp.toString()));
        assertThat(run.exitCode()).as(run.stderr()).isEqualTo(2);
        assertThat(run.stderr().strip()).doesNotContain("\n")
                .startsWith("winproxy start: WINPROXY_APISERVER_HOST: the API server address is unknown");
    }

    @Test
    void anInvalidSourceVipOrPortIsRefusedNamingTheVariable() throws Exception {
        Run port = script(Map.of("NODE_NAME", "win-1", "CONTAINER_SANDBOX_MOUNT_POINT", temp.toString(),
                "WINPROXY_APISERVER_HOST", "10.0.0.10", "WINPROXY_APISERVER_PORT", "https"));
        assertThat(port.exitCode()).isEqualTo(2);
        assertThat(port.stderr().strip()).isEqualTo("winproxy start: WINPROXY_APISERVER_PORT: not a port number: "
                + "'https'");

        Run noNode = script(Map.of("CONTAINER_SANDBOX_MOUNT_POINT", temp.toString()));
        assertThat(noNode.exitCode()).isEqualTo(2);
        assertThat(noNode.stderr()).contains("winproxy start: NODE_NAME: not set");
    }

    private record Run(int exitCode, String stdout, String stderr) {
    }

    /**
     * Dot-sources the script and runs one PowerShell expression, from a file so that no quoting of a command line is
     * involved; its output, trimmed.
     */
    private Run call(String expression) throws IOException, InterruptedException {
        Path test = Files.createTempFile(temp, "call-", ".ps1");
        Files.writeString(test, ". '" + SCRIPT + "'\r\n" + expression + "\r\n", StandardCharsets.UTF_8);
        return powershell(List.of("-File", test.toString()), Map.of());
    }

    /** Runs the script as the DaemonSet does, with only the given variables of winproxy's set. */
    private static Run script(Map<String, String> env) throws IOException, InterruptedException {
        return powershell(List.of("-File", SCRIPT.toString(), "--v=2"), env);
    }

    private static Run powershell(List<String> arguments, Map<String, String> env)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("powershell.exe", "-NoLogo", "-NoProfile",
                "-NonInteractive", "-ExecutionPolicy", "Bypass"));
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command);
        for (String name : List.of("NODE_NAME", "CONTAINER_SANDBOX_MOUNT_POINT", "WINPROXY_APISERVER_HOST",
                "WINPROXY_APISERVER_PORT", "WINPROXY_NETWORK_NAME", "KUBE_NETWORK", "WINPROXY_SOURCE_VIP")) {
            builder.environment().remove(name);
        }
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), out.strip(), err);
    }
}
