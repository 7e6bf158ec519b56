package io.winproxy.launcher;

import com.sun.jna.Pointer;
import com.sun.jna.platform.win32.Kernel32;
import com.sun.jna.platform.win32.WinBase;
import com.sun.jna.platform.win32.WinNT;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A stand-in agent for KubeProxyExeServiceWindowsIT, packaged as {@code winproxy-agent.jar} beside kube-proxy.exe,
 * that follows the agent's side of the launcher's service contract (winproxy-agent's LauncherStopEvent): it signals
 * the event named by {@code WINPROXY_READY_EVENT} and ends when the one named by {@code WINPROXY_STOP_EVENT} is
 * signalled. Its arguments are kube-proxy.exe's (the service's binary path), plus:
 * <ul>
 *   <li>{@code --stand-in-record=FILE}: appends one line per event ("started", "ready", "stop signalled", "exit N");</li>
 *   <li>{@code --stand-in-exit=N}: the exit code after the stop (default 0);</li>
 *   <li>{@code --stand-in-fail=N}: exits with N on its own, after ready;</li>
 *   <li>{@code --stand-in-never-ready}: never signals ready;</li>
 *   <li>{@code --stand-in-ignore-stop}: keeps running after the stop event.</li>
 * </ul>
 */
public final class ServiceAgentStandIn {
    private static Path record;

    private ServiceAgentStandIn() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        int exit = 0;
        Integer fail = null;
        boolean neverReady = false;
        boolean ignoreStop = false;
        for (String arg : args) {
            if (arg.startsWith("--stand-in-record=")) {
                record = Path.of(arg.substring("--stand-in-record=".length()));
            } else if (arg.startsWith("--stand-in-exit=")) {
                exit = Integer.parseInt(arg.substring("--stand-in-exit=".length()));
            } else if (arg.startsWith("--stand-in-fail=")) {
                fail = Integer.parseInt(arg.substring("--stand-in-fail=".length()));
            } else if (arg.equals("--stand-in-never-ready")) {
                neverReady = true;
            } else if (arg.equals("--stand-in-ignore-stop")) {
                ignoreStop = true;
            }
        }
        String stopValue = System.getenv("WINPROXY_STOP_EVENT");
        String readyValue = System.getenv("WINPROXY_READY_EVENT");
        log("started " + String.join(" ", args) + " stop=" + stopValue + " ready=" + readyValue);
        if (stopValue == null) {
            log("exit 9: no WINPROXY_STOP_EVENT");
            System.exit(9);
        }
        Kernel32 kernel32 = Kernel32.INSTANCE;
        WinNT.HANDLE stop = handle(stopValue);
        Thread.sleep(1000); // a start that takes a moment, as the agent's first sync does
        if (!neverReady && readyValue != null) {
            log("ready"); // before the event: the service is RUNNING once it is set, and tests then read the log
            kernel32.SetEvent(handle(readyValue));
        }
        if (fail != null) {
            Thread.sleep(1000);
            log("exit " + fail);
            System.exit(fail);
        }
        while (kernel32.WaitForSingleObject(stop, 200) != WinBase.WAIT_OBJECT_0) {
            Thread.onSpinWait();
        }
        log("stop signalled");
        if (ignoreStop) {
            Thread.sleep(Long.MAX_VALUE);
        }
        log("exit " + exit);
        System.exit(exit);
    }

    private static WinNT.HANDLE handle(String value) {
        return new WinNT.HANDLE(new Pointer(Long.parseLong(value)));
    }

    private static void log(String line) throws IOException {
        if (record != null) {
            Files.writeString(record, line + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
    }
}
