package io.winproxy.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.platform.win32.Kernel32;
import com.sun.jna.platform.win32.WinBase;
import com.sun.jna.platform.win32.WinDef;
import com.sun.jna.platform.win32.WinError;
import com.sun.jna.platform.win32.WinNT;
import com.sun.jna.platform.win32.Wincon;
import com.sun.jna.ptr.IntByReference;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built kube-proxy.exe on real Windows, in a folder with a stand-in agent jar ({@link ArgvEcho}). Processes are
 * started with CreateProcessW and a raw command line, exactly as a launcher script or the SCM starts kube-proxy.exe
 * (Java's ProcessBuilder would re-quote the arguments itself).
 */
@EnabledOnOs(OS.WINDOWS)
class KubeProxyExeWindowsIT {
    private static final Kernel32 KERNEL32 = Kernel32.INSTANCE;
    private static final int CREATE_NEW_PROCESS_GROUP = 0x00000200;

    @TempDir
    Path home;
    private Path exe;
    private Path echo;

    @BeforeEach
    void unpackTheLauncherBesideAStandInAgent() throws IOException {
        exe = home.resolve("kube-proxy.exe");
        Files.copy(Path.of(System.getProperty("kube-proxy.exe", "target/kube-proxy.exe")), exe);
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, ArgvEcho.class.getName());
        String entry = ArgvEcho.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(home.resolve("winproxy-agent.jar"));
                JarOutputStream jar = new JarOutputStream(file, manifest);
                InputStream bytes = ArgvEcho.class.getClassLoader().getResourceAsStream(entry)) {
            jar.putNextEntry(new JarEntry(entry));
            bytes.transferTo(jar);
        }
        echo = home.resolve("argv.bin");
    }

    @Test
    void everyArgumentReachesTheAgentUnchangedAndItsExitCodeIsReturned() throws IOException {
        // ASCII only: java.exe reads its command line in the ANSI code page (see docs/windows-service.md)
        String args = "--v=4 --kubeconfig=\"C:\\Program Files\\k\\config\" \"\" \"trailing\\\\\" a\\\\\\\"b"
                + " \"say \"\"hi\"\"\" *.yaml --feature-gates=? \"tab\there\"";
        Run run = run("\"" + exe + "\" " + args, Map.of("ARGV_ECHO_EXIT", "3"), 0);

        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(echoed()).isEqualTo(CommandLineToArgv.split(args));
    }

    @Test
    void versionIsPassedToTheAgentAndItsZeroExitCodeReturned() throws IOException {
        Run run = run(exe + " --version", Map.of(), 0);

        assertThat(run.exitCode()).isZero();
        assertThat(echoed()).containsExactly("--version");
    }

    @Test
    void withoutJavaItExitsWithOneAndNamesWhereItLooked() throws IOException {
        Path bare = home.resolve("empty");
        Files.createDirectories(bare);
        Run run = run(exe + " --version", Map.of("JAVA_HOME", "", "WINPROXY_JAVA_HOME", "", "PATH",
                bare.toString()), 0);

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.stderr()).contains("no Java runtime found").contains(home + "\\jre").contains("JAVA_HOME")
                .contains("PATH");
    }

    @Test
    void ctrlBreakReachesTheAgentWhileTheLauncherKeepsWaitingAndKillingTheLauncherKillsTheAgent()
            throws IOException, InterruptedException {
        Run started = start(exe + " --wait", Map.of("ARGV_ECHO_WAIT", "1"), CREATE_NEW_PROCESS_GROUP);
        long agentPid = awaitAgentPid();
        ProcessHandle agent = ProcessHandle.of(agentPid).orElseThrow();

        // Ctrl+Break goes to the whole group; the JVM prints a thread dump and runs on, the launcher ignores it
        assertThat(KERNEL32.GenerateConsoleCtrlEvent(Wincon.CTRL_BREAK_EVENT, (int) started.pid())).isTrue();
        Thread.sleep(2000);
        assertThat(KERNEL32.WaitForSingleObject(started.process(), 0)).isEqualTo(WinError.WAIT_TIMEOUT);
        assertThat(agent.isAlive()).isTrue();

        // however the launcher ends, its job object takes the agent with it
        assertThat(KERNEL32.TerminateProcess(started.process(), 137)).isTrue();
        assertThat(agent.onExit().completeOnTimeout(null, 10, TimeUnit.SECONDS).join())
                .isNotNull();
        assertThat(agent.isAlive()).isFalse();
        KERNEL32.CloseHandle(started.process());
    }

    private List<String> echoed() throws IOException {
        List<String> fields = new ArrayList<>(Arrays.asList(
                Files.readString(echo, StandardCharsets.UTF_8).split("\0", -1)));
        fields.remove(fields.size() - 1); // after the last NUL
        fields.remove(0); // the agent's pid
        return fields;
    }

    private long awaitAgentPid() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!Files.exists(echo) || Files.readString(echo).indexOf('\0') < 0) {
            assertThat(System.nanoTime()).as("the agent started within 30 s").isLessThan(deadline);
            Thread.sleep(100);
        }
        return Long.parseLong(Files.readString(echo).substring(0, Files.readString(echo).indexOf('\0')));
    }

    record Run(WinNT.HANDLE process, long pid, int exitCode, String stderr) {
    }

    /** Runs to completion (at most 60 s); stderr is captured through a file. */
    private Run run(String commandLine, Map<String, String> environment, int flags) throws IOException {
        Run started = start(commandLine, environment, flags);
        assertThat(KERNEL32.WaitForSingleObject(started.process(), 60_000)).isEqualTo(WinBase.WAIT_OBJECT_0);
        IntByReference code = new IntByReference();
        assertThat(KERNEL32.GetExitCodeProcess(started.process(), code)).isTrue();
        KERNEL32.CloseHandle(started.process());
        return new Run(null, started.pid(), code.getValue(), Files.readString(home.resolve("stderr.txt"),
                StandardCharsets.UTF_8));
    }

    private Run start(String commandLine, Map<String, String> environment, int flags) {
        WinBase.SECURITY_ATTRIBUTES inherit = new WinBase.SECURITY_ATTRIBUTES();
        inherit.bInheritHandle = true;
        WinNT.HANDLE stderr = KERNEL32.CreateFile(home.resolve("stderr.txt").toString(), WinNT.GENERIC_WRITE,
                WinNT.FILE_SHARE_READ, inherit, WinNT.CREATE_ALWAYS, WinNT.FILE_ATTRIBUTE_NORMAL, null);
        WinBase.STARTUPINFO startup = new WinBase.STARTUPINFO();
        startup.dwFlags = WinBase.STARTF_USESTDHANDLES;
        startup.hStdInput = KERNEL32.GetStdHandle(Wincon.STD_INPUT_HANDLE);
        startup.hStdOutput = stderr;
        startup.hStdError = stderr;
        WinBase.PROCESS_INFORMATION info = new WinBase.PROCESS_INFORMATION();
        StringBuilder block = new StringBuilder();
        Map<String, String> env = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        env.putAll(System.getenv());
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("ARGV_ECHO_FILE", echo.toString());
        env.putAll(environment);
        env.forEach((name, value) -> {
            if (!value.isEmpty()) {
                block.append(name).append('=').append(value).append('\0');
            }
        });
        block.append('\0');
        Memory memory = new Memory(block.length() * 2L);
        memory.write(0, block.toString().toCharArray(), 0, block.length());
        char[] line = (commandLine + "\0").toCharArray();
        boolean created = KERNEL32.CreateProcessW(null, line, null, null, true,
                new WinDef.DWORD(flags | WinBase.CREATE_UNICODE_ENVIRONMENT), memory, home.toString(), startup, info);
        KERNEL32.CloseHandle(stderr);
        assertThat(created).as("CreateProcessW: %s", KERNEL32.GetLastError()).isTrue();
        KERNEL32.CloseHandle(info.hThread);
        return new Run(info.hProcess, info.dwProcessId.longValue(), -1, "");
    }
}
