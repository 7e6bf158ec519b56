package io.winproxy.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A stand-in agent for KubeProxyExeWindowsIT, packaged by the test as {@code winproxy-agent.jar} beside a copy of
 * kube-proxy.exe. It writes its process id and then every argument it received, each followed by a NUL, to the file
 * named by {@code ARGV_ECHO_FILE} (UTF-8); exits with {@code ARGV_ECHO_EXIT} (default 0); with
 * {@code ARGV_ECHO_WAIT} set it runs until it is killed.
 */
public final class ArgvEcho {
    private ArgvEcho() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        StringBuilder out = new StringBuilder().append(ProcessHandle.current().pid()).append('\0');
        for (String arg : args) {
            out.append(arg).append('\0');
        }
        Files.writeString(Path.of(System.getenv("ARGV_ECHO_FILE")), out, StandardCharsets.UTF_8);
        if (System.getenv("ARGV_ECHO_WAIT") != null) {
            Thread.sleep(Long.MAX_VALUE);
        }
        String exit = System.getenv("ARGV_ECHO_EXIT");
        System.exit(exit == null ? 0 : Integer.parseInt(exit));
    }
}
