package io.winproxy.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built kube-proxy.exe on a Windows API: under Wine on Linux (so in every {@code mvn verify} where Wine can be had;
 * skipped with one line elsewhere), directly on Windows. Beside the exe: an empty {@code winproxy-agent.jar} and, as
 * {@code jre\bin\java.exe}, the stand-in runtime (src/test/c/java-standin.c) that reports the argv it received as
 * CommandLineToArgvW splits it. Raw command lines, console events and kills come from {@code harness.exe}
 * (src/test/c/harness.c), a Windows program too.
 */
class KubeProxyExeWineIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final int RANDOM_LINES = 20_000;

    @TempDir
    static Path home;
    @RegisterExtension
    static final WindowsApiHostExtension WINDOWS = new WindowsApiHostExtension();
    private static WindowsApiHost host;
    private static String exe;

    @BeforeAll
    static void unpackTheLauncherBesideAStandInRuntime() throws IOException {
        host = WINDOWS.host();
        if (host != null) {
            exe = host.windowsPath(LauncherFolder.create(home.resolve("k")));
        }
    }

    @Test
    void everyLauncherCommandLineReachesTheAgentAsItsLauncherTestResolves() throws Exception {
        // each launcher's line once (a Wine process pair costs ~0.5-2 s), the ways of naming the binary in turn
        List<String> lines = new ArrayList<>();
        List<List<String>> expected = new ArrayList<>();
        List<String> programs = CommandLineLaunchersReplayTest.PROGRAM_NAMES;
        for (CommandLineLaunchersReplayTest.Launcher launcher : CommandLineLaunchersReplayTest.LAUNCHERS) {
            lines.add(programs.get(lines.size() % programs.size()) + " " + launcher.commandLine());
            expected.add(Arrays.asList(AgentCommandLineReference.split(launcher.commandLine())));
        }

        List<Started> started = runEach(lines, Map.of());

        for (int i = 0; i < lines.size(); i++) {
            assertThat(started.get(i).exitCode()).as(lines.get(i)).isZero();
            assertThat(started.get(i).argv()).as(lines.get(i)).isEqualTo(expected.get(i));
        }
    }

    @Test
    void randomCommandLinesReachTheAgentAsCommandLineToArgvWSplitsThem() throws Exception {
        List<String> lines = afterProgramNames(RandomCommandLines.lines(20, 12, 1, 30));

        List<Started> started = runEach(lines, Map.of());

        for (int i = 0; i < lines.size(); i++) {
            assertThat(started.get(i).argv()).as("[%s]", lines.get(i))
                    .isEqualTo(CommandLineToArgv.arguments(lines.get(i)));
        }
    }

    /**
     * The launcher's own argument code (cmdline.c, built for Windows) on 20,000 random lines in one process: the
     * system's CommandLineToArgvW splits what kube-proxy.exe hands java.exe into the arguments it splits kube-proxy.exe's
     * own line into; and this project's model of those rules agrees with the system on every line.
     */
    @Test
    void twentyThousandRandomLinesForwardToTheArgvCommandLineToArgvWGives() throws Exception {
        List<String> lines = afterProgramNames(RandomCommandLines.lines(2020, RANDOM_LINES, 0, 40));
        Path in = home.resolve("forward.in");
        Path out = home.resolve("forward.out");
        Files.write(in, records(lines));

        WindowsApiHost.Result result = host.run(TIMEOUT, Map.of(), harness(), "forward", host.windowsPath(in),
                host.windowsPath(out));

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        Fields fields = new Fields(Files.readAllBytes(out));
        for (String line : lines) {
            List<String> kubeProxyGot = fields.list();
            List<String> javaGets = fields.list();
            assertThat(javaGets).as("[%s]", line).isEqualTo(kubeProxyGot);
            assertThat(CommandLineToArgv.arguments(line)).as("the model on [%s]", line).isEqualTo(kubeProxyGot);
        }
        assertThat(fields.atEnd()).isTrue();
    }

    @Test
    void theShippedJvmOptionsComeFirstAndTheOperatorsOptionsAfterThemSoThatTheOperatorWins() throws Exception {
        Path folder = home.resolve("jvm options");
        String launcher = host.windowsPath(LauncherFolder.create(folder));
        String dir = host.windowsPath(folder);
        Map<String, String> jvmOptions = Map.of("STANDIN_JVM_OPTIONS", "1");
        Map<String, String> withOperator = Map.of("STANDIN_JVM_OPTIONS", "1", "WINPROXY_JAVA_OPTS", "-Xmx300m");

        String jna = "-Djna.boot.library.path=" + dir + "\\lib";
        assertThat(runEach(launcher, List.of("\"" + launcher + "\" --version"), withOperator).get(0).argv())
                .as("no argument files next to the jar: the operator's options alone")
                .containsExactly(jna, "-Djna.nounpack=true", "-Xmx300m");

        Files.writeString(folder.resolve("jvm.options"), "-Xmx192m\r\n");
        assertThat(runEach(launcher, List.of("\"" + launcher + "\" --version"), jvmOptions).get(0).argv())
                .containsExactly("@" + dir + "\\jvm.options", jna, "-Djna.nounpack=true");
        Files.writeString(folder.resolve("jvm-cds.options"), "-Xshare:auto\r\n");
        List<Started> started = runEach(launcher, List.of("\"" + launcher + "\" --version"), withOperator);
        assertThat(started.get(0).argv()).containsExactly("@" + dir + "\\jvm.options",
                "@" + dir + "\\jvm-cds.options", jna, "-Djna.nounpack=true", "-Xmx300m");
    }

    @Test
    void theAgentsExitCodeIsTheLaunchersOwn() throws Exception {
        for (int code : new int[] {0, 1, 2, 3, 130}) {
            Started started = runEach(List.of(exe + " --version"), Map.of("STANDIN_EXIT", Integer.toString(code)))
                    .get(0);

            assertThat(started.exitCode()).isEqualTo(code);
            assertThat(started.argv()).containsExactly("--version");
        }
    }

    @Test
    void jnaLoadsItsNativeLibraryFromLibBesideTheLauncherNeverFromTemp() throws Exception {
        String folder = exe.substring(0, exe.lastIndexOf('\\'));
        Started started = runEach(List.of(exe + " --version"), Map.of("STANDIN_JVM_OPTIONS", "1",
                "WINPROXY_JAVA_OPTS", "-Xss1m")).get(0);

        assertThat(started.argv()).containsExactly("-Djna.boot.library.path=" + folder + "\\lib",
                "-Djna.nounpack=true", "-Xss1m");
    }

    @Test
    void killingTheLauncherKillsTheAgentThroughItsJob() throws Exception {
        WindowsApiHost.Result result = host.run(TIMEOUT, Map.of(), harness(), "kill", exe);

        assertThat(result.exitCode()).as(result.stdout() + result.stderr()).isZero();
        assertThat(result.stdout()).contains("the agent ended with its launcher");
    }

    @Test
    void ctrlCReachesTheAgentWhichDecidesWhileTheLauncherWaitsAndReturnsItsCode() throws Exception {
        WindowsApiHost.Result result = host.run(TIMEOUT, Map.of(), harness(), "ctrl-c", exe);

        assertThat(result.exitCode()).as(result.stdout() + result.stderr()).isZero();
        assertThat(result.stdout()).contains("agent got the Ctrl+C; kube-proxy.exe exit code 130");
    }

    @Test
    void aJavaExeThatIsNoProgramIsNamedInTheErrorWithTheSystemTextFilledIn() throws Exception {
        Path folder = home.resolve("bad");
        WindowsApiHost.Result result = versionOfLauncherIn(folder,
                f -> Files.writeString(f.resolve("jre/bin/java.exe"), "not a program\r\n"));

        String java = host.windowsPath(folder.resolve("jre/bin/java.exe"));
        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.stderr()).startsWith("kube-proxy.exe: cannot start " + java + ": ")
                .contains("(193)").doesNotContain("%1");
        assertThat(result.stderr().substring(("kube-proxy.exe: cannot start " + java).length())).contains(java);
    }

    @Test
    void withoutJavaItExitsWithOneAndNamesWhereItLooked() throws Exception {
        Path folder = home.resolve("nojava");
        WindowsApiHost.Result result = versionOfLauncherIn(folder, f -> Files.delete(f.resolve("jre/bin/java.exe")));

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.stderr()).contains("no Java runtime found").contains(host.windowsPath(folder) + "\\jre")
                .contains("JAVA_HOME").contains("PATH");
    }

    @Test
    void withoutTheAgentJarItExitsWithOneAndSaysSo() throws Exception {
        Path folder = home.resolve("nojar");
        WindowsApiHost.Result result = versionOfLauncherIn(folder, f -> Files.delete(f.resolve("winproxy-agent.jar")));

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.stderr()).contains(host.windowsPath(folder.resolve("winproxy-agent.jar")) + " not found");
    }

    /** A change to a launcher folder before the launcher runs. */
    @FunctionalInterface
    private interface FolderChange {
        void apply(Path folder) throws IOException;
    }

    /** {@code kube-proxy.exe --version} run from a fresh launcher folder at {@code folder} after {@code change}. */
    private WindowsApiHost.Result versionOfLauncherIn(Path folder, FolderChange change) throws Exception {
        String launcher = host.windowsPath(LauncherFolder.create(folder));
        change.apply(folder);
        return host.run(TIMEOUT, Map.of(), launcher, "--version");
    }

    /** Each of {@code arguments} after one of the ways of naming the binary, in turn. */
    private static List<String> afterProgramNames(List<String> arguments) {
        List<String> programs = CommandLineLaunchersReplayTest.PROGRAM_NAMES;
        List<String> lines = new ArrayList<>(arguments.size());
        for (int i = 0; i < arguments.size(); i++) {
            lines.add(programs.get(i % programs.size()) + " " + arguments.get(i));
        }
        return lines;
    }

    private static String harness() {
        return WindowsApiHost.TOOLS.resolve("harness.exe").toAbsolutePath().toString();
    }

    record Started(int exitCode, List<String> argv) {
    }

    /** Starts kube-proxy.exe once per raw command line (harness run) and returns what each stand-in agent got. */
    private static List<Started> runEach(List<String> lines, Map<String, String> environment) throws Exception {
        return runEach(exe, lines, environment);
    }

    /** {@link #runEach(List, Map)} with the kube-proxy.exe at {@code launcher}. */
    private static List<Started> runEach(String launcher, List<String> lines, Map<String, String> environment)
            throws Exception {
        Path in = Files.createTempFile(home, "run", ".in");
        Path out = Files.createTempFile(home, "run", ".out");
        Files.write(in, records(lines));

        WindowsApiHost.Result result = host.run(TIMEOUT, environment, harness(), "run", launcher, host.windowsPath(in),
                host.windowsPath(out));

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        Fields fields = new Fields(Files.readAllBytes(out));
        List<Started> started = new ArrayList<>();
        for (String line : lines) {
            int exitCode = Integer.parseInt(fields.next());
            int length = Integer.parseInt(fields.next());
            Fields output = new Fields(fields.take(length));
            assertThat(output.atEnd()).as("the stand-in agent ran for [%s] (exit %s)", line, exitCode).isFalse();
            output.next(); // its pid
            started.add(new Started(exitCode, output.list()));
        }
        return started;
    }

    private static byte[] records(List<String> lines) {
        StringBuilder text = new StringBuilder();
        lines.forEach(line -> text.append(line).append('\0'));
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** NUL-terminated UTF-8 fields, read in order. */
    private static final class Fields {
        private final byte[] bytes;
        private int offset;

        Fields(byte[] bytes) {
            this.bytes = bytes;
        }

        boolean atEnd() {
            return offset >= bytes.length;
        }

        String next() {
            int end = offset;
            while (end < bytes.length && bytes[end] != 0) {
                end++;
            }
            String field = new String(bytes, offset, end - offset, StandardCharsets.UTF_8);
            offset = end + 1;
            return field;
        }

        /** A count, then that many fields. */
        List<String> list() {
            int count = Integer.parseInt(next());
            List<String> list = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                list.add(next());
            }
            return list;
        }

        byte[] take(int length) {
            byte[] taken = Arrays.copyOfRange(bytes, offset, offset + length);
            offset += length;
            return taken;
        }
    }
}
