package io.winproxy.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A folder laid out as the distribution is, for the tests on a Windows API: the built kube-proxy.exe, an (empty)
 * winproxy-agent.jar, and the stand-in runtime (src/test/c/java-standin.c) as {@code jre\bin\java.exe}, the second
 * place kube-proxy.exe looks for Java.
 */
final class LauncherFolder {
    private LauncherFolder() {
    }

    /** Creates the folder and returns its kube-proxy.exe. */
    static Path create(Path folder) throws IOException {
        Files.createDirectories(folder.resolve("jre").resolve("bin"));
        Path exe = folder.resolve("kube-proxy.exe");
        Files.copy(Path.of(System.getProperty("kube-proxy.exe", "target/kube-proxy.exe")), exe);
        Files.write(folder.resolve("winproxy-agent.jar"), new byte[0]);
        Files.copy(WindowsApiHost.TOOLS.resolve("java.exe"), folder.resolve("jre").resolve("bin").resolve("java.exe"));
        return exe;
    }
}
