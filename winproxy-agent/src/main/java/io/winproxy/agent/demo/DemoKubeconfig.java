package io.winproxy.agent.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A kubeconfig file for the demo's embedded API server, so that the root command (or any kube-proxy style command
 * line with {@code --kubeconfig=FILE}) can be pointed at it. The server is plain HTTP on loopback and needs no
 * credentials, so the file names a cluster, an empty user and a current context.
 */
public final class DemoKubeconfig {
    /** The name used for the cluster, user and context in the file. */
    public static final String NAME = "winproxy-demo";

    private DemoKubeconfig() {
    }

    /** The kubeconfig text for {@code apiUrl} (for example {@code http://127.0.0.1:6443}). */
    public static String render(String apiUrl) {
        return String.join("\n",
                "# Written by 'winproxy demo' for its embedded API server (plain HTTP on loopback, no credentials).",
                "apiVersion: v1",
                "kind: Config",
                "clusters:",
                "- name: " + NAME,
                "  cluster:",
                "    server: " + apiUrl,
                "users:",
                "- name: " + NAME,
                "  user: {}",
                "contexts:",
                "- name: " + NAME,
                "  context:",
                "    cluster: " + NAME,
                "    user: " + NAME,
                "current-context: " + NAME,
                "");
    }

    /**
     * Writes the kubeconfig for {@code apiUrl} to {@code file}, creating its parent directories.
     *
     * @throws DemoException naming the flag and the file when it cannot be written
     */
    public static Path write(Path file, String apiUrl) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, render(apiUrl), StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            throw new DemoException("--write-kubeconfig: cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
