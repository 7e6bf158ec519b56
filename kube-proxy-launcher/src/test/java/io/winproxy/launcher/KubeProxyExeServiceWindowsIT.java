package io.winproxy.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.Native;
import com.sun.jna.platform.win32.Advapi32;
import com.sun.jna.platform.win32.Advapi32Util;
import com.sun.jna.platform.win32.Kernel32;
import com.sun.jna.platform.win32.W32Service;
import com.sun.jna.platform.win32.WinError;
import com.sun.jna.platform.win32.WinNT;
import com.sun.jna.platform.win32.Winsvc;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * kube-proxy.exe registered as a service's binary path, as OpenShift WMCO and {@code sc.exe create} registrations
 * do (CreateServiceW, which sc.exe calls), started and stopped through the real SCM. Beside it: a stand-in agent
 * ({@link ServiceAgentStandIn}) and a {@code jre} junction to this test's Java runtime, since a LocalSystem service
 * does not see the test's JAVA_HOME. Needs an elevated prompt; skipped otherwise. The scenarios are
 * {@link KubeProxyExeServiceScenarios}'s; this class drives the SCM and adds what only it shows (the accepted
 * controls, the stop event's name, the Application event log).
 */
@EnabledOnOs(OS.WINDOWS)
class KubeProxyExeServiceWindowsIT extends KubeProxyExeServiceScenarios {
    private static final Advapi32 ADVAPI32 = Advapi32.INSTANCE;

    @TempDir
    Path folder;
    private final String name = "winproxy-it-" + UUID.randomUUID().toString().substring(0, 8);
    private Path exe;
    private Winsvc.SC_HANDLE manager;
    private Winsvc.SC_HANDLE service;

    @BeforeEach
    void unpackTheLauncherBesideAStandInAgentAndAJavaRuntime() throws IOException, InterruptedException,
            URISyntaxException {
        home = folder;
        manager = ADVAPI32.OpenSCManager(null, null, Winsvc.SC_MANAGER_ALL_ACCESS);
        int error = Native.getLastError();
        assumeTrue(manager != null || error != WinError.ERROR_ACCESS_DENIED,
                "registering a service needs an elevated prompt");
        assertThat(manager).as("OpenSCManager: %s", error).isNotNull();

        exe = home.resolve("kube-proxy.exe");
        Files.copy(Path.of(System.getProperty("kube-proxy.exe", "target/kube-proxy.exe")), exe);
        record = home.resolve("record.txt");
        writeStandInJar(home.resolve("winproxy-agent.jar"));
        Process junction = new ProcessBuilder("cmd.exe", "/c", "mklink", "/J", home.resolve("jre").toString(),
                System.getProperty("java.home")).redirectErrorStream(true).start();
        assertThat(junction.waitFor()).as(new String(junction.getInputStream().readAllBytes())).isZero();
    }

    @AfterEach
    void deleteTheService() throws InterruptedException {
        if (service != null) {
            Winsvc.SERVICE_STATUS status = new Winsvc.SERVICE_STATUS();
            ADVAPI32.ControlService(service, Winsvc.SERVICE_CONTROL_STOP, status);
            awaitState(Winsvc.SERVICE_STOPPED);
            ADVAPI32.DeleteService(service);
            ADVAPI32.CloseServiceHandle(service);
        }
        if (manager != null) {
            ADVAPI32.CloseServiceHandle(manager);
        }
    }

    @Override
    String recordArgument() {
        return record.toString();
    }

    @Override
    Duration ignoredStopLimit() {
        return Duration.ofSeconds(45);
    }

    /** The SCM lets a running kube-proxy.exe be stopped, and the agent got the stop event's name. */
    @Override
    void checkRunning() throws IOException {
        assertThat(query().dwControlsAccepted & Winsvc.SERVICE_ACCEPT_STOP).isNotZero();
        assertThat(recorded().get(0)).doesNotContain("stop=null");
    }

    /** The launcher says why in the Application event log, as source winproxy. */
    @Override
    void checkTheMissingJarWasReported() {
        String expected = home.resolve("winproxy-agent.jar") + " not found";
        boolean logged = false;
        Advapi32Util.EventLogIterator events = new Advapi32Util.EventLogIterator(null, "Application",
                WinNT.EVENTLOG_BACKWARDS_READ);
        try {
            for (int i = 0; i < 50 && events.hasNext() && !logged; i++) {
                Advapi32Util.EventLogRecord event = events.next();
                logged = event.getSource().equals("winproxy") && event.getStrings() != null
                        && String.join(" ", event.getStrings()).contains(expected);
            }
        } finally {
            events.close();
        }
        assertThat(logged).as("an Application event from source winproxy containing [%s]", expected).isTrue();
    }

    @Override
    void register(String arguments) {
        String binaryPath = "\"" + exe + "\" " + arguments;
        service = ADVAPI32.CreateService(manager, name, name, Winsvc.SERVICE_ALL_ACCESS,
                WinNT.SERVICE_WIN32_OWN_PROCESS, WinNT.SERVICE_DEMAND_START, WinNT.SERVICE_ERROR_NORMAL, binaryPath,
                null, null, null, null, null);
        assertThat(service).as("CreateService: %s", Native.getLastError()).isNotNull();
    }

    @Override
    void start() {
        assertThat(ADVAPI32.StartService(service, 0, null)).as("StartService: %s", Native.getLastError()).isTrue();
    }

    @Override
    void stop() {
        assertThat(ADVAPI32.ControlService(service, Winsvc.SERVICE_CONTROL_STOP, new Winsvc.SERVICE_STATUS()))
                .as("ControlService(STOP): %s", Native.getLastError()).isTrue();
    }

    private Winsvc.SERVICE_STATUS_PROCESS query() {
        return new W32Service(service).queryStatus();
    }

    @Override
    Status status() {
        Winsvc.SERVICE_STATUS_PROCESS status = query();
        return new Status(status.dwCurrentState, status.dwWin32ExitCode, status.dwServiceSpecificExitCode);
    }

    @Override
    Status awaitState(int state) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        Status status = status();
        while (status.state() != state) {
            assertThat(System.nanoTime()).as("state %s within %s; now %s", state, TIMEOUT, status.state())
                    .isLessThan(deadline);
            Thread.sleep(200);
            status = status();
        }
        return status;
    }

    /** The stand-in agent, with JNA from this test's class path named in its manifest. */
    private static void writeStandInJar(Path jar) throws IOException, URISyntaxException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, ServiceAgentStandIn.class.getName());
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ",
                Native.class.getProtectionDomain().getCodeSource().getLocation().toURI().toString(),
                Kernel32.class.getProtectionDomain().getCodeSource().getLocation().toURI().toString()));
        String entry = ServiceAgentStandIn.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest);
                InputStream bytes = ServiceAgentStandIn.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            bytes.transferTo(out);
        }
    }
}
