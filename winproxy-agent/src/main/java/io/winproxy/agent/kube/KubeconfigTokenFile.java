package io.winproxy.agent.kube;

import io.fabric8.kubernetes.api.model.AuthInfo;
import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.winproxy.agent.Messages;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The {@code users[].user.tokenFile} of the kubeconfig user the current context names, which fabric8 does not read
 * (it reads {@code token}, client certificates, {@code exec} and {@code auth-provider}). kubeadm's kube-proxy
 * kubeconfig ({@code kubeconfig.conf} in the {@code kube-proxy} ConfigMap) authenticates this way, with the projected
 * service-account token that kubelet rotates, so the file is read again as it changes ({@link FileTokenProvider}).
 *
 * <p>As client-go: a relative path is relative to the kubeconfig file that defines the user; where several files are
 * merged ({@code KUBECONFIG}), the first file that defines the user wins. In a HostProcess container whose volumes are
 * mounted under {@code %CONTAINER_SANDBOX_MOUNT_POINT%} (containerd before 1.7), a rooted path such as
 * {@code /var/run/secrets/kubernetes.io/serviceaccount/token} that does not exist as given is looked for under that
 * mount point.
 */
final class KubeconfigTokenFile {
    /** The environment variable HostProcess containers set to where their volumes are mounted. */
    static final String SANDBOX_MOUNT_POINT = "CONTAINER_SANDBOX_MOUNT_POINT";

    private KubeconfigTokenFile() {
    }

    /**
     * The token file of the current context's user, resolved, or empty when that user has none (or no context is
     * selected).
     *
     * @param config      what fabric8 loaded (its current context names the user)
     * @param kubeconfigs the kubeconfig files fabric8 loaded, in precedence order
     * @param env         the process environment
     * @throws KubeClientException when the file is named but cannot be read, naming the kubeconfig field
     */
    static Optional<Path> find(Config config, List<File> kubeconfigs, Function<String, String> env) {
        NamedContext current = config.getCurrentContext();
        if (current == null || current.getContext() == null || current.getContext().getUser() == null) {
            return Optional.empty();
        }
        String userName = current.getContext().getUser();
        for (File file : kubeconfigs) {
            Optional<AuthInfo> user = user(file, userName);
            if (user.isPresent()) {
                String tokenFile = user.get().getTokenFile();
                if (tokenFile == null || tokenFile.isBlank()) {
                    return Optional.empty();
                }
                return Optional.of(resolve(file, userName, tokenFile.strip(), env));
            }
        }
        return Optional.empty();
    }

    private static Optional<AuthInfo> user(File kubeconfig, String userName) {
        io.fabric8.kubernetes.api.model.Config parsed;
        try (InputStream in = Files.newInputStream(kubeconfig.toPath())) {
            parsed = Serialization.unmarshal(in, io.fabric8.kubernetes.api.model.Config.class);
        } catch (IOException | RuntimeException e) {
            // fabric8 read this file already; a file that changed in between is read again at the next start
            return Optional.empty();
        }
        if (parsed == null || parsed.getUsers() == null) {
            return Optional.empty();
        }
        return parsed.getUsers().stream().filter(u -> userName.equals(u.getName()) && u.getUser() != null)
                .map(NamedAuthInfo::getUser).findFirst();
    }

    private static Path resolve(File kubeconfig, String userName, String tokenFile, Function<String, String> env) {
        String field = "--kubeconfig: users[" + userName + "].user.tokenFile in " + kubeconfig;
        Path given;
        try {
            given = Path.of(tokenFile);
        } catch (InvalidPathException e) {
            throw new KubeClientException(field + " is not a valid path: " + tokenFile);
        }
        Path path = given.isAbsolute() || isRooted(tokenFile) ? given
                : kubeconfig.getAbsoluteFile().toPath().resolveSibling(given);
        if (!Files.isRegularFile(path) && isRooted(tokenFile)) {
            String mount = env.apply(SANDBOX_MOUNT_POINT);
            if (mount != null && !mount.isBlank()) {
                Path sandboxed = Path.of(mount, tokenFile.replace('\\', '/').replaceFirst("^/+", ""));
                if (Files.isRegularFile(sandboxed)) {
                    path = sandboxed;
                }
            }
        }
        try {
            FileTokenProvider.readToken(path);
        } catch (IOException e) {
            throw new KubeClientException(field + ": cannot read " + path + ": "
                    + Messages.firstLine(e.getMessage(), e.getClass().getSimpleName()));
        }
        return path;
    }

    /** A path that starts at a root ({@code /x} or {@code \x}) without a drive: absolute on Linux, rooted on Windows. */
    private static boolean isRooted(String path) {
        return path.startsWith("/") || path.startsWith("\\");
    }
}
