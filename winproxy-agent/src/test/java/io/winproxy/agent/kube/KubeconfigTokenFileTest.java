package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeconfigTokenFileTest {
    @TempDir
    Path dir;

    private File kubeconfig(Path path, String currentUser, String users) throws IOException {
        Files.createDirectories(path.getParent());
        return Files.writeString(path, """
                apiVersion: v1
                kind: Config
                clusters:
                - cluster: {server: "https://10.0.0.1:6443"}
                  name: c
                contexts:
                - context: {cluster: c, user: %s}
                  name: ctx
                current-context: ctx
                users:
                %s
                """.formatted(currentUser, users.stripIndent().stripTrailing())).toFile();
    }

    private static Optional<Path> find(File kubeconfig, Map<String, String> env) {
        return KubeconfigTokenFile.find(Config.fromKubeconfig(kubeconfig), List.of(kubeconfig), env::get);
    }

    @Test
    void aRelativeTokenFileIsRelativeToTheKubeconfigAndTheCurrentContextsUserIsTheOneUsed() throws IOException {
        Files.createDirectories(dir.resolve("conf/secrets"));
        Files.writeString(dir.resolve("conf/secrets/token"), "t");
        File file = kubeconfig(dir.resolve("conf/kubeconfig.conf"), "proxy", """
                - name: other
                  user: {tokenFile: /nonexistent/other}
                - name: proxy
                  user: {tokenFile: secrets/token}
                """);

        assertThat(find(file, Map.of())).contains(dir.resolve("conf/secrets/token").toAbsolutePath());
    }

    @Test
    void aUserWithoutATokenFileLeavesAuthenticationToFabric8() throws IOException {
        File file = kubeconfig(dir.resolve("kubeconfig"), "proxy", """
                - name: proxy
                  user: {token: abc}
                """);

        assertThat(find(file, Map.of())).isEmpty();
    }

    @Test
    void anUnreadableTokenFileIsAConfigurationErrorNamingTheField() throws IOException {
        File file = kubeconfig(dir.resolve("kubeconfig"), "proxy", """
                - name: proxy
                  user: {tokenFile: missing-token}
                """);

        assertThatThrownBy(() -> find(file, Map.of())).isInstanceOf(KubeClientException.class)
                .hasMessageStartingWith("--kubeconfig: users[proxy].user.tokenFile in " + file)
                .hasMessageContaining("missing-token").hasMessageNotContaining("\n");
    }

    @Test
    void aRootedPathMissingAsGivenIsFoundUnderTheHostProcessSandboxMountPoint() throws IOException {
        // kubeadm's path, under a directory of its own so that no machine has it (a pod would have the real one)
        String rooted = "/var/run/secrets/winproxy-test-" + UUID.randomUUID() + "/serviceaccount/token";
        Path sandbox = dir.resolve("sandbox");
        Path token = sandbox.resolve(rooted.substring(1));
        Files.createDirectories(token.getParent());
        Files.writeString(token, "t");
        File file = kubeconfig(dir.resolve("kubeconfig"), "default", """
                - name: default
                  user: {tokenFile: %s}
                """.formatted(rooted));

        assertThat(find(file, Map.of(KubeconfigTokenFile.SANDBOX_MOUNT_POINT, sandbox.toString())))
                .contains(token);
        assertThatThrownBy(() -> find(file, Map.of())).isInstanceOf(KubeClientException.class);
    }
}
