package io.winproxy.installer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarInputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** Opens the built winproxy-VERSION-windows.zip and checks its layout and the contents operators rely on. */
class WindowsDistributionIT {
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The DaemonSet's entry point, as hcsshim sees it before it replaces the sandbox mount point variable. */
    private static final String START_SCRIPT_IN_IMAGE =
            "%CONTAINER_SANDBOX_MOUNT_POINT%\\winproxy\\hostprocess\\start.ps1";
    private static Map<String, byte[]> zip;
    private static String version;

    @BeforeAll
    static void readDistribution() throws IOException {
        version = System.getProperty("winproxy.version", "0.1.0-SNAPSHOT");
        Path path = Path.of(System.getProperty("winproxy.distribution",
                "target/winproxy-" + version + "-windows.zip"));
        assertThat(path).as("the distribution zip").isRegularFile();
        zip = new HashMap<>();
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(path))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                if (!entry.isDirectory()) {
                    zip.put(entry.getName(), in.readAllBytes());
                }
            }
        }
    }

    @Test
    void theZipHasTheDocumentedLayout() {
        assertThat(zip).containsKeys(
                "kube-proxy.exe",
                "winproxy.cmd",
                "winproxy.ps1",
                "winproxy-agent.jar",
                "jvm.options",
                "install-service.ps1",
                "uninstall-service.ps1",
                "conf/kube-proxy-config.yaml",
                "powershell/WinProxy/WinProxy.psd1",
                "powershell/WinProxy/WinProxy.psm1",
                "hostprocess/winproxy.yaml",
                "hostprocess/Dockerfile",
                "hostprocess/start.ps1",
                "lib/jnidispatch.dll",
                "THIRD-PARTY-NOTICES",
                "SHA256SUMS");
        assertThat(zip.keySet()).as("no base directory, no stray files")
                .allMatch(name -> !name.startsWith("winproxy-" + version + "/"));
    }

    @Test
    void sha256sumsVerifiesEveryFileOfTheZip() throws Exception {
        java.security.MessageDigest sha256 = java.security.MessageDigest.getInstance("SHA-256");
        Map<String, String> sums = new HashMap<>();
        for (String line : text("SHA256SUMS").split("\n")) {
            assertThat(line).as("sha256sum's format").matches("[0-9a-f]{64}  \\S.*");
            sums.put(line.substring(66), line.substring(0, 64));
        }
        List<String> files = zip.keySet().stream().filter(name -> !name.equals("SHA256SUMS")).sorted().toList();
        assertThat(sums.keySet()).containsExactlyInAnyOrderElementsOf(files);
        for (String file : files) {
            assertThat(java.util.HexFormat.of().formatHex(sha256.digest(zip.get(file)))).as(file)
                    .isEqualTo(sums.get(file));
        }
    }

    @Test
    void thirdPartyNoticesNameEveryBundledJarWithItsVersionAndLicence() {
        String notices = text("THIRD-PARTY-NOTICES");
        List<String> jars = zip.keySet().stream().filter(name -> name.matches("lib/[^/]+\\.jar"))
                .filter(name -> !name.equals("lib/winproxy-installer.jar")).toList();
        List<String> blocks = Arrays.asList(notices.split("\r\n(?=\\S)"));
        for (String jar : jars) {
            String file = jar.substring("lib/".length());
            java.util.Optional<String> block = blocks.stream().filter(b -> b.contains("(lib\\" + file + ")"))
                    .findFirst();
            if (file.matches("(hns-client|vfp-policy|dsr)-" + java.util.regex.Pattern.quote(version) + "\\.jar")) {
                assertThat(block).as("winproxy's own " + file + " is not third-party").isEmpty();
                continue;
            }
            assertThat(block).as(file).isPresent();
            assertThat(block.get().lines().skip(1).toList()).as("the licence of " + file).isNotEmpty()
                    .allMatch(line -> line.startsWith("    ") && !line.isBlank());
        }
        assertThat(notices).contains("net.java.dev.jna:jna:").contains("lib\\jnidispatch.dll")
                .contains("Apache");
    }

    @Test
    void theAgentJarIsTheRealAgentAndEveryClassPathEntryIsInLibButTheDemosApiServer() throws IOException {
        byte[] jar = zip.get("winproxy-agent.jar");
        List<String> classes = new ArrayList<>();
        Manifest manifest;
        try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
            manifest = in.getManifest();
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                classes.add(entry.getName());
            }
        }
        assertThat(classes).contains("io/winproxy/agent/winsvc/WindowsServiceHost.class");
        assertThat(manifest).isNotNull();
        assertThat(manifest.getMainAttributes().getValue("Main-Class")).isNotBlank();
        String classPath = manifest.getMainAttributes().getValue("Class-Path");
        assertThat(classPath).as("Class-Path of the agent jar").isNotBlank();
        List<String> entries = Arrays.stream(classPath.trim().split("\\s+")).toList();
        assertThat(entries).allMatch(entry -> entry.startsWith("lib/"));
        // The agent jar is the development build's runnable jar: its Class-Path also names the demo's optional API
        // server (winproxy-demo and the mock server's closure), which the node's zip leaves out and the JVM skips.
        List<String> missing = entries.stream().filter(entry -> !zip.containsKey(entry)).toList();
        assertThat(missing).as("Class-Path entries not in lib/").isNotEmpty().allMatch(WindowsDistributionIT::demoOnly);
        assertThat(missing).anyMatch(entry -> entry.startsWith("lib/winproxy-demo-"));
        assertThat(entries).anyMatch(entry -> entry.startsWith("lib/jna-platform-"));
    }

    /** A jar only the demo's embedded API server needs: fabric8's mock server, Vert.x, Netty, BouncyCastle. */
    private static boolean demoOnly(String jar) {
        String name = jar.substring(jar.lastIndexOf('/') + 1);
        return name.startsWith("winproxy-demo-") || name.startsWith("kubernetes-server-mock-")
                || name.startsWith("mockwebserver-") || name.startsWith("vertx-") || name.startsWith("netty-")
                || name.startsWith("bcprov-") || name.startsWith("bcpkix-") || name.startsWith("bcutil-");
    }

    @Test
    void libHoldsNoDemoApiServerMockServerVertxNettyOrBouncyCastle() {
        List<String> lib = zip.keySet().stream().filter(name -> name.startsWith("lib/")).toList();
        assertThat(lib).noneMatch(WindowsDistributionIT::demoOnly);
        assertThat(lib).noneMatch(name -> name.contains("mock") || name.contains("vertx") || name.contains("netty"));
    }

    @Test
    void fromTheUnpackedZipTheAgentRunsAndTheDemoSaysInOneLineThatItIsNotShipped(@TempDir Path home)
            throws IOException, InterruptedException {
        unpack(home);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process version = new ProcessBuilder(java, "-jar", "winproxy-agent.jar", "--version").directory(home.toFile())
                .redirectErrorStream(true).start();
        String versionOut = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(version.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(version.exitValue()).as(versionOut).isZero();
        assertThat(versionOut).startsWith("Kubernetes v1.");

        Process demo = new ProcessBuilder(java, "-jar", "winproxy-agent.jar", "demo", "--once")
                .directory(home.toFile()).start();
        String out = new String(demo.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(demo.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(demo.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(demo.exitValue()).as(err).isEqualTo(2);
        assertThat(err.strip()).doesNotContain("\n").contains("not part of this distribution");
        assertThat(out).isEmpty();
    }

    @Test
    void kubeProxyExeIsAPe32PlusX8664ConsoleProgramAtTheRootBesideTheAgentJar() {
        ByteBuffer exe = ByteBuffer.wrap(zip.get("kube-proxy.exe")).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(exe.getShort(0)).as("MZ").isEqualTo((short) 0x5A4D);
        int pe = exe.getInt(0x3C);
        assertThat(exe.getInt(pe)).as("PE\\0\\0").isEqualTo(0x00004550);
        assertThat(exe.getShort(pe + 4) & 0xFFFF).as("machine: AMD64").isEqualTo(0x8664);
        int characteristics = exe.getShort(pe + 22) & 0xFFFF;
        assertThat(characteristics & 0x0002).as("IMAGE_FILE_EXECUTABLE_IMAGE").isNotZero();
        assertThat(characteristics & 0x2000).as("not a DLL").isZero();
        int optionalHeader = pe + 24;
        assertThat(exe.getShort(optionalHeader) & 0xFFFF).as("optional header magic: PE32+").isEqualTo(0x20B);
        assertThat(exe.getShort(optionalHeader + 68) & 0xFFFF).as("subsystem: Windows console").isEqualTo(3);
        assertThat(zip).containsKey("winproxy-agent.jar");
    }

    @Test
    void kubeProxyExeCarriesWinproxysVersionInItsVersionResource() {
        PeVersionResource resource = PeVersionResource.of(zip.get("kube-proxy.exe"));
        // What (Get-Item kube-proxy.exe).VersionInfo shows as FileVersion and ProductVersion.
        assertThat(resource.strings()).containsEntry("FileVersion", version).containsEntry("ProductVersion", version)
                .containsEntry("OriginalFilename", "kube-proxy.exe").containsEntry("ProductName", "winproxy");
        String[] numbers = version.replaceFirst("-.*", "").split("\\.");
        String fixed = String.join(".", Arrays.copyOf(numbers, 4)).replace("null", "0");
        assertThat(resource.fileVersion()).isEqualTo(fixed);
        assertThat(resource.productVersion()).isEqualTo(fixed);
    }

    @Test
    @EnabledOnOs(OS.WINDOWS)
    void kubeProxyExeRunsTheAgentFromTheUnpackedZipAndPrintsKubeProxysVersion(@TempDir Path home)
            throws IOException, InterruptedException {
        unpack(home);
        ProcessBuilder builder = new ProcessBuilder(home.resolve("kube-proxy.exe").toString(), "--version")
                .redirectErrorStream(true);
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        assertThat(output).startsWith("Kubernetes v1.");
    }

    @Test
    void theServiceRegistrarRunsFromLibWithJnaBesideIt() throws IOException {
        List<String> classes = new ArrayList<>();
        try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(zip.get("lib/winproxy-installer.jar")))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                classes.add(entry.getName());
            }
        }
        assertThat(classes).contains("io/winproxy/installer/Main.class",
                "io/winproxy/installer/ServiceRegistrar.class");
        assertThat(zip.keySet()).anyMatch(name -> name.matches("lib/jna-\\d.*\\.jar"))
                .anyMatch(name -> name.matches("lib/jna-platform-\\d.*\\.jar"));
    }

    @Test
    void libHoldsRuntimeJarsOnlyAndNoTestLibraries() {
        List<String> lib = zip.keySet().stream().filter(name -> name.startsWith("lib/")).toList();
        assertThat(lib).isNotEmpty().allMatch(name -> name.endsWith(".jar") || name.equals("lib/jnidispatch.dll"));
        assertThat(lib).noneMatch(name -> name.contains("junit") || name.contains("assertj")
                || name.contains("mockito") || name.contains("ps-scripts") || name.endsWith(".pom"));
    }

    @Test
    void everyLauncherPassesTheShippedJvmOptionsBeforeTheOperatorsSoThatTheOperatorsWin() {
        assertThat(text("jvm.options")).contains("-Xmx").contains("-XX:+UseSerialGC");
        assertThat(text("jvm.options").lines().map(String::strip)).as("the JVM would exit before the fatal line")
                .doesNotContain("-XX:+ExitOnOutOfMemoryError");
        assertThat(text("winproxy.cmd")).contains("set WINPROXY_JVM_DEFAULTS=\"@%WINPROXY_HOME%\\jvm.options\"")
                .contains("\"@%WINPROXY_HOME%\\jvm-cds.options\"")
                .contains("\"%JAVA_EXE%\" %WINPROXY_JVM_DEFAULTS% \"-Djna.boot.library.path=");
        assertThat(text("winproxy.ps1")).contains("@('jvm.options', 'jvm-cds.options')")
                .contains("$javaOptions += \"@$path\"").contains("$javaOptions += @($env:WINPROXY_JAVA_OPTS");
        assertThat(text("install-service.ps1")).contains("& $java @jvmDefaults -jar $jar cds")
                .contains("$commandLine = @($java, '-Xrs') + $jvmDefaults + $jnaOptions + $JavaOptions + @('-jar', $jar)")
                .contains("[string[]] $JavaOptions = @(),");
    }

    @Test
    void jnaLoadsItsNativeLibraryFromLibInEveryLaunchPathNeverFromTemp() throws IOException {
        String jna = zip.keySet().stream().filter(name -> name.matches("lib/jna-\\d[^/]*\\.jar")).findFirst()
                .orElseThrow();
        byte[] inJar = null;
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip.get(jna)))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                if (entry.getName().equals("com/sun/jna/win32-x86-64/jnidispatch.dll")) {
                    inJar = in.readAllBytes();
                }
            }
        }
        assertThat(inJar).as("the 64-bit Windows library in " + jna).isNotNull();
        assertThat(zip.get("lib/jnidispatch.dll")).as("shipped unpacked, the same build as the jar's")
                .isEqualTo(inJar);

        assertThat(text("winproxy.cmd")).contains("\"-Djna.boot.library.path=%WINPROXY_HOME%\\lib\" "
                + "-Djna.nounpack=true %WINPROXY_JAVA_OPTS% -jar");
        String jnaOptions = "$jnaOptions = @(\"-Djna.boot.library.path=$(Join-Path -Path $winproxyHome -ChildPath "
                + "'lib')\", '-Djna.nounpack=true')";
        assertThat(text("winproxy.ps1")).contains(jnaOptions).contains("& $java @jnaOptions @javaOptions -jar $jar");
        assertThat(text("install-service.ps1")).contains(jnaOptions)
                .contains("+ $jnaOptions + $JavaOptions + @('-jar', $jar)");
        // The DaemonSet's start.ps1 runs winproxy through winproxy.ps1; kube-proxy.exe is checked by its Wine IT.
        assertThat(text("hostprocess/start.ps1")).contains("-ChildPath 'winproxy.ps1'").contains("& $launcher @all");
    }

    @Test
    void theCmdLauncherFindsJavaAndPassesEveryArgumentThrough() {
        String cmd = text("winproxy.cmd");
        assertThat(cmd).as("CRLF line endings for cmd.exe").contains("\r\n").doesNotContain("\n\n\n");
        assertThat(cmd.replace("\r\n", "")).doesNotContain("\n");
        assertThat(cmd).contains("%JAVA_HOME%\\bin\\java.exe")
                .contains("%WINPROXY_HOME%\\runtime\\bin\\java.exe")
                .contains("-jar \"%WINPROXY_HOME%\\winproxy-agent.jar\" %*")
                .contains("exit /b %ERRORLEVEL%");
    }

    @Test
    void thePowerShellLauncherFindsJavaAndPassesEveryArgumentThrough() {
        String ps1 = text("winproxy.ps1");
        assertThat(ps1).contains("$env:JAVA_HOME").contains("runtime\\bin\\java.exe")
                .contains("-jar $jar @args").contains("exit $LASTEXITCODE");
    }

    @Test
    void installServiceRegistersTheJvmWithRecoveryActionsAndTheFailureFlag() {
        String script = text("install-service.ps1");
        assertThat(script).contains("[string] $ServiceName = 'kube-proxy'").contains("kubeproxy");
        assertThat(script).contains("'--windows-service'").contains("'-Xrs'");
        assertThat(script).as("with --config the flag is ignored, so the service copy of the file says it")
                .contains("'windowsRunAsService: true'").contains("-service'");
        assertThat(script).as("a service has no console: log to a file")
                .contains("'--logtostderr=false', \"--log-file=$LogFile\"");
        assertThat(script).contains("[int[]] $RestartDelaySeconds = @(10, 30, 60)")
                .contains("[int] $ResetPeriodSeconds = 900")
                .contains("@('failure', $ServiceName, 'reset=', \"$ResetPeriodSeconds\", 'actions=', $actions)")
                .contains("@('failureflag', $ServiceName, '1')");
        assertThat(script).contains("'Automatic', 'AutomaticDelayedStart', 'Manual'").contains("delayed-auto");
        assertThat(script).doesNotContain("Remove-HnsPolicyList");
        assertThat(script).as("a Java runtime in one step").contains("[string] $JavaHome").contains("[string] $RuntimeZip")
                .contains("Expand-Archive -LiteralPath $RuntimeZip").contains("ChildPath 'runtime'");
        assertThat(script).as("-ReplaceService and -RollbackService run the installer's replace and rollback")
                .contains("[string] $ReplaceService").contains("[string] $RollbackService")
                .contains("'io.winproxy.installer.Main'")
                .contains("@('replace', '--name', $target, '--kube-proxy', (Join-Path -Path $winproxyHome -ChildPath "
                        + "'kube-proxy.exe'), '--record', $record)")
                .contains("@('rollback', '--name', $target, '--record', $record)");
        assertThat(script).as("the state directory is SYSTEM + Administrators only, owned by Administrators")
                .contains("Initialize-WinProxyStateDirectory -Path $StateDirectory")
                .contains("$acl.SetAccessRuleProtection($true, $false)")
                .contains("$acl.SetOwner($administrators)")
                .contains("[System.Security.Principal.SecurityIdentifier]::new('S-1-5-32-544')")
                .contains("[System.Security.Principal.SecurityIdentifier]::new('S-1-5-18')")
                .contains("foreach ($sid in @($system, $administrators))")
                .contains("'FullControl', $inherit, 'None', 'Allow'")
                .contains("Join-Path -Path $env:ProgramData -ChildPath 'winproxy'");
    }

    @Test
    void theImageRecipeUnpacksAJavaRuntimeBesideKubeProxyExe() {
        String dockerfile = text("hostprocess/Dockerfile");
        assertThat(dockerfile).contains("ARG JRE_URL=").contains("ARG JRE_SHA256=")
                .contains("FROM --platform=$BUILDPLATFORM").contains("unzip")
                .contains("COPY --from=runtime /runtime/ /winproxy/runtime/")
                .contains("docker buildx build --platform windows/amd64 -f hostprocess/Dockerfile");
    }

    @Test
    void theSampleConfigurationIsAKubeProxyConfigurationWithTheWinkernelBlock() throws IOException {
        JsonNode config = YAML.readTree(zip.get("conf/kube-proxy-config.yaml"));
        assertKubeProxyConfiguration(config);
        assertThat(config.path("clientConnection").path("kubeconfig").asText()).isEqualTo("C:\\k\\config");
    }

    @Test
    void theHostProcessDaemonSetRunsTheShippedStartScriptAsAHostProcess() throws IOException {
        Map<String, JsonNode> objects = manifestObjects();
        JsonNode pod = objects.get("DaemonSet").path("spec").path("template").path("spec");

        JsonNode windowsOptions = pod.path("securityContext").path("windowsOptions");
        assertThat(windowsOptions.path("hostProcess").asBoolean()).isTrue();
        assertThat(windowsOptions.path("runAsUserName").asText()).isEqualTo("NT AUTHORITY\\system");
        assertThat(pod.path("hostNetwork").asBoolean()).isTrue();
        assertThat(pod.path("nodeSelector").path("kubernetes.io/os").asText()).isEqualTo("windows");
        assertThat(pod.path("serviceAccountName").asText())
                .isEqualTo(objects.get("ServiceAccount").path("metadata").path("name").asText());

        JsonNode container = pod.path("containers").get(0);
        List<String> command = strings(container.path("command"));
        assertThat(command.get(0)).isEqualTo("powershell.exe");
        assertThat(command).containsSubsequence("-File", START_SCRIPT_IN_IMAGE);
        assertThat(zip).as("the script the DaemonSet runs is in the zip, so in the image")
                .containsKey("hostprocess/start.ps1");
        assertThat(text("hostprocess/start.ps1")).as("CRLF line endings for Windows PowerShell").contains("\r\n");
        assertThat(text("hostprocess/Dockerfile")).as("the image's entry point is the same script")
                .contains("\"-File\", \"" + START_SCRIPT_IN_IMAGE.replace("\\", "\\\\") + "\"]");
        assertThat(strings(container.path("args"))).contains("--v=2")
                .anyMatch(arg -> arg.startsWith("--feature-gates=") && arg.contains("WinDSR=true"))
                .as("DSR is start.ps1's decision per node, from the CNI configuration")
                .noneMatch(arg -> arg.startsWith("--enable-dsr"));
        assertThat(envByName(container).get("WINPROXY_ENABLE_DSR").path("value").asText()).isEmpty();
        assertThat(text("hostprocess/start.ps1")).contains("Get-WinProxyDsrDecision -PassThrough $PassThrough")
                .contains("'\"loopbackDSR\"").contains("'\"enableLoopbackDSR\"").contains("\"calico\"")
                .contains("\"azure-vnet\"").contains("Write-WinProxyStartLog \"DSR $($dsr.Reason)\"");
        assertThat(envByName(container).get("NODE_NAME").path("valueFrom").path("fieldRef").path("fieldPath").asText())
                .isEqualTo("spec.nodeName");
        assertThat(container.path("image").asText()).isEqualTo("winproxy:" + version + "-hostprocess");
    }

    @Test
    void noNodeIsGivenAClusterWideSourceVipAndTheScriptComputesItPerNode() throws IOException {
        String manifest = text("hostprocess/winproxy.yaml");
        assertThat(manifest).doesNotContain("sourceVip:").doesNotContain("kube-proxy-config.yaml");
        JsonNode container = manifestObjects().get("DaemonSet").path("spec").path("template").path("spec")
                .path("containers").get(0);
        List<String> args = strings(container.path("args"));
        // With --config winproxy (as kube-proxy) ignores --source-vip and --network-name: the script's flags must win.
        assertThat(args).noneMatch(arg -> arg.startsWith("--source-vip") || arg.startsWith("--config")
                || arg.startsWith("--network-name"));
        assertThat(envByName(container).get("WINPROXY_SOURCE_VIP").path("value").asText())
                .as("an override here would be one address for every node").isEmpty();

        String script = text("hostprocess/start.ps1");
        assertThat(script).contains("\"--source-vip=$sourceVip\"").contains("$network.type -eq 'Overlay'")
                .contains("'Calico' ").contains("= 'Calico_ep'").contains("'VIPEndpoint'")
                .contains("'C:\\sourcevip\\sourceVip.json'").contains("'host-local.exe'");
        assertThat(script).doesNotContainIgnoringCase("Remove-HnsPolicyList");
    }

    @Test
    void theSourceVipIsReservedWithTheSameHostLocalRequestAsTheSigWindowsToolsFlannelScript() throws IOException {
        String script = text("hostprocess/start.ps1").replace("\r\n", "\n");
        String function = script.substring(script.indexOf("function New-WinProxyIpamRequest"));
        String hereString = function.substring(function.indexOf("@\"\n") + 3, function.indexOf("\n\"@"));
        String dataDir = script.replaceFirst("(?s).*\\$script:HostLocalDataDir = '([^']+)'.*", "$1");
        String request = hereString.replace("$NetworkName", "flannel.4096").replace("$Subnet", "10.244.1.0/24")
                .replace("$script:HostLocalDataDir", dataDir);

        // 0.2.0 as theirs, so that host-local prints the ip4.ip shape their script reads back after a rollback.
        JsonNode expected = JSON.readTree("{\"cniVersion\": \"0.2.0\", \"name\": \"flannel.4096\", \"ipam\": "
                + "{\"type\": \"host-local\", \"ranges\": [[{\"subnet\": \"10.244.1.0/24\"}]], "
                + "\"dataDir\": \"/var/lib/cni/networks\"}}");
        assertThat(JSON.readTree(request)).isEqualTo(expected);
        // CNI ADD with the same container ID, so that a reservation either script made is found by the other.
        assertThat(script).contains("$script:SourceVipContainerId = 'dummy'")
                .contains("CNI_COMMAND = 'ADD'; CNI_CONTAINERID = $script:SourceVipContainerId")
                .contains("CNI_NETNS = 'dummy'").contains("CNI_IFNAME = 'dummy'").contains("CNI_PATH = $BinDir");
    }

    @Test
    void theApiServerIsReachedByItsRealAddressNotTheKubernetesServiceClusterIp() throws IOException {
        JsonNode pod = manifestObjects().get("DaemonSet").path("spec").path("template").path("spec");
        JsonNode container = pod.path("containers").get(0);
        Map<String, JsonNode> env = envByName(container);
        // The kubelet sets KUBERNETES_SERVICE_HOST to the ClusterIP; the manifest must not rely on it.
        assertThat(env).doesNotContainKeys("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "KUBERNETES_MASTER");
        assertThat(strings(container.path("args"))).noneMatch(arg -> arg.startsWith("--master")
                || arg.startsWith("--kubeconfig"));
        for (String[] pair : new String[][] {{"WINPROXY_APISERVER_HOST", "KUBERNETES_SERVICE_HOST"},
                {"WINPROXY_APISERVER_PORT", "KUBERNETES_SERVICE_PORT"}}) {
            JsonNode ref = env.get(pair[0]).path("valueFrom").path("configMapKeyRef");
            assertThat(ref.path("name").asText()).isEqualTo("winproxy-apiserver");
            assertThat(ref.path("key").asText()).isEqualTo(pair[1]);
            assertThat(ref.path("optional").asBoolean()).as("kubeadm clusters need no such ConfigMap").isTrue();
        }

        // kubeadm's kube-proxy ConfigMap (kubeconfig.conf holds the real server URL), where the script reads it.
        JsonNode volume = null;
        for (JsonNode v : pod.path("volumes")) {
            if (v.path("configMap").path("name").asText().equals("kube-proxy")) {
                volume = v;
            }
        }
        assertThat(volume).as("a volume of kubeadm's kube-proxy ConfigMap").isNotNull();
        assertThat(volume.path("configMap").path("optional").asBoolean()).isTrue();
        String mountPath = null;
        for (JsonNode m : container.path("volumeMounts")) {
            if (m.path("name").asText().equals(volume.path("name").asText())) {
                mountPath = m.path("mountPath").asText();
            }
        }
        assertThat(mountPath).isNotNull();
        String script = text("hostprocess/start.ps1");
        assertThat(script).contains("-ChildPath '" + mountPath.substring(1).replace('/', '\\') + "\\kubeconfig.conf'")
                .contains("$env:KUBERNETES_SERVICE_HOST = $apiServer.Host")
                .contains("$env:KUBERNETES_SERVICE_PORT = $apiServer.Port")
                .contains("$env:WINPROXY_APISERVER_HOST").contains("$env:WINPROXY_APISERVER_PORT");
    }

    @Test
    void livenessProbesLivezReadinessProbesHealthzAndStartUpHasTimeToWaitForTheNetwork() throws IOException {
        JsonNode container = manifestObjects().get("DaemonSet").path("spec").path("template").path("spec")
                .path("containers").get(0);
        JsonNode liveness = container.path("livenessProbe");
        JsonNode readiness = container.path("readinessProbe");
        JsonNode startup = container.path("startupProbe");
        assertThat(liveness.path("httpGet").path("path").asText()).isEqualTo("/livez");
        assertThat(readiness.path("httpGet").path("path").asText()).isEqualTo("/healthz");
        assertThat(startup.path("httpGet").path("path").asText()).isEqualTo("/livez");
        for (JsonNode probe : List.of(liveness, readiness, startup)) {
            assertThat(probe.path("httpGet").path("port").asInt()).isEqualTo(10256);
            assertThat(probe.path("periodSeconds").asInt()).isBetween(5, 30);
            assertThat(probe.path("failureThreshold").asInt()).isGreaterThanOrEqualTo(3);
        }
        assertThat(strings(container.path("args"))).doesNotContain("--healthz-bind-address=")
                .filteredOn(arg -> arg.startsWith("--healthz-bind-address=")).allMatch(arg -> arg.endsWith(":10256"));
        // The liveness probe starts counting only once the startup probe has passed: the start script may wait for the
        // CNI's network and source-VIP endpoint up to its timeout, then the JVM starts.
        String script = text("hostprocess/start.ps1");
        int scriptTimeout = Integer.parseInt(script.replaceFirst("(?s).*\\$timeout = (\\d+).*", "$1"));
        int startupWindow = startup.path("periodSeconds").asInt() * startup.path("failureThreshold").asInt();
        assertThat(startupWindow).isGreaterThanOrEqualTo(scriptTimeout + 30);
    }

    @Test
    void theStartScriptReadsFieldsTheAgentsHnsListPrints(@TempDir Path home) throws IOException, InterruptedException {
        unpack(home);
        // An emulated Calico VXLAN node: the Overlay network and the host endpoint that holds the source VIP.
        Path state = home.resolve("hns.json");
        Files.writeString(state, """
                {"HnsVersion": "15.4",
                 "Networks": [{"ID": "5E3C2B7A-0D7E-4D3A-9E5B-1F2A3B4C5D6E", "Name": "Calico", "Type": "Overlay",
                               "Ipams": [{"Type": "Static", "Subnets": [{"IpAddressPrefix": "10.244.1.0/24"}]}],
                               "SchemaVersion": {"Major": 2, "Minor": 0}}],
                 "Endpoints": [{"ID": "A1B2C3D4-0000-4000-8000-000000000001", "Name": "Calico_ep",
                                "HostComputeNetwork": "5E3C2B7A-0D7E-4D3A-9E5B-1F2A3B4C5D6E",
                                "IpConfigurations": [{"IpAddress": "10.244.1.1", "PrefixLength": 32}],
                                "MacAddress": "00-15-5D-01-02-03", "SchemaVersion": {"Major": 2, "Minor": 0}}],
                 "LoadBalancers": []}
                """, StandardCharsets.UTF_8);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process list = new ProcessBuilder(java, "-jar", "winproxy-agent.jar", "hns", "list", "-o", "json",
                "--hns-state", state.toString()).directory(home.toFile()).start();
        String out = new String(list.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(list.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(list.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(list.exitValue()).as(err).isZero();

        JsonNode listing = JSON.readTree(out);
        JsonNode network = listing.path("networks").get(0);
        assertThat(network.path("name").asText()).isEqualTo("Calico");
        assertThat(network.path("type").asText()).isEqualTo("Overlay");
        assertThat(network.path("subnets").get(0).asText()).isEqualTo("10.244.1.0/24");
        JsonNode endpoint = listing.path("endpoints").get(0);
        assertThat(endpoint.path("name").asText()).isEqualTo("Calico_ep");
        assertThat(endpoint.path("ip").asText()).isEqualTo("10.244.1.1");

        String script = text("hostprocess/start.ps1");
        assertThat(script).contains("& $Launcher hns list -o json").contains(".networks").contains("$hns.endpoints")
                .contains("$_.name -eq $Name").contains("$_.type -eq 'Overlay'").contains("$_.type -eq 'L2Bridge'")
                .contains("@($Network.subnets)").contains("$_.name -eq $endpointName").contains("$endpoint.ip");
    }

    @Test
    void theDaemonSetDoesNotWipeHnsStateBeforeStarting() throws IOException {
        String manifest = text("hostprocess/winproxy.yaml");
        String withoutComments = manifest.lines().filter(line -> !line.stripLeading().startsWith("#"))
                .reduce("", (a, b) -> a + b + "\n");
        assertThat(withoutComments).doesNotContainIgnoringCase("Remove-HnsPolicyList")
                .doesNotContainIgnoringCase("cleanup");
        assertThat(manifest).doesNotContain("${");
    }

    @Test
    void theProxyIsBoundToTheNodeProxierRole() throws IOException {
        JsonNode binding = manifestObjects().get("ClusterRoleBinding");
        assertThat(binding.path("roleRef").path("name").asText()).isEqualTo("system:node-proxier");
        assertThat(binding.path("subjects").get(0).path("name").asText()).isEqualTo("winproxy");
    }

    @Test
    void thePowerShellModuleShipsWithWindowsLineEndings() {
        String module = text("powershell/WinProxy/WinProxy.psm1");
        assertThat(module).contains("\r\n");
        for (String part : List.of("WinProxy.Agent.ps1", "WinProxy.LoadBalancer.ps1", "WinProxy.Commands.ps1",
                "WinProxy.Diagnostics.ps1")) {
            assertThat(module).as("the module dot-sources %s", part).contains("'" + part + "'");
            assertThat(text("powershell/WinProxy/" + part)).contains("\r\n");
        }
        assertThat(text("powershell/WinProxy/WinProxy.LoadBalancer.ps1")).contains("function Get-WinProxyLoadBalancer");
        assertThat(text("powershell/WinProxy/WinProxy.psd1")).contains("RootModule");
    }

    private static void assertKubeProxyConfiguration(JsonNode config) {
        assertThat(config.path("apiVersion").asText()).isEqualTo("kubeproxy.config.k8s.io/v1alpha1");
        assertThat(config.path("kind").asText()).isEqualTo("KubeProxyConfiguration");
        assertThat(config.path("mode").asText()).isEqualTo("kernelspace");
        JsonNode winkernel = config.path("winkernel");
        assertThat(winkernel.isObject()).as("winkernel block").isTrue();
        assertThat(winkernel.fieldNames()).toIterable()
                .contains("networkName", "sourceVip", "enableDSR", "rootHnsEndpointName", "forwardHealthCheckVip");
        assertThat(config.path("featureGates").path("WinDSR").asBoolean()).isTrue();
    }

    private static Map<String, JsonNode> manifestObjects() throws IOException {
        Map<String, JsonNode> byKind = new HashMap<>();
        try (InputStream in = new ByteArrayInputStream(zip.get("hostprocess/winproxy.yaml"));
                MappingIterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(in)) {
            while (docs.hasNext()) {
                JsonNode doc = docs.next();
                assertThat(byKind.put(doc.path("kind").asText(), doc)).as("one %s", doc.path("kind")).isNull();
            }
        }
        assertThat(byKind).containsKeys("ServiceAccount", "ClusterRoleBinding", "DaemonSet");
        return byKind;
    }

    private static Map<String, JsonNode> envByName(JsonNode container) {
        Map<String, JsonNode> env = new HashMap<>();
        container.path("env").forEach(e -> env.put(e.path("name").asText(), e));
        return env;
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(node -> values.add(node.asText()));
        return values;
    }

    private static String text(String name) {
        assertThat(zip).containsKey(name);
        return new String(zip.get(name), StandardCharsets.UTF_8);
    }

    /** Writes every entry of the distribution zip below {@code home}, as an operator unpacking it does. */
    private static void unpack(Path home) throws IOException {
        for (Map.Entry<String, byte[]> entry : zip.entrySet()) {
            Path file = home.resolve(entry.getKey());
            Files.createDirectories(file.getParent());
            Files.write(file, entry.getValue());
        }
    }
}
