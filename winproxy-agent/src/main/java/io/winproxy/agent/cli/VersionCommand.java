package io.winproxy.agent.cli;

import io.winproxy.agent.metrics.BuildInfo;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code winproxy version}: the winproxy and Java versions. */
@Command(name = "version", description = "Print the version.")
public final class VersionCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    /** The jar's Implementation-Version, or "dev" when run from classes. */
    public static String version() {
        String v = VersionCommand.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    @Override
    public Integer call() {
        root.context().out().println("winproxy " + version() + " (java " + System.getProperty("java.version") + ")");
        return 0;
    }

    /**
     * The Kubernetes release whose kube-proxy behaviour winproxy matches (its flags, gates and defaults). Launchers
     * such as Calico's parse {@code kube-proxy --version} to decide on DSR and overlay support.
     */
    public static final String KUBERNETES_VERSION = "v1.33.0";

    /**
     * kube-proxy's {@code --version} output: {@code Kubernetes v1.N.M} (then winproxy's own line), or with
     * {@code raw} the {@code version.Info} form.
     *
     * @throws UsageException naming {@code --version} for any other value than true or raw
     */
    static void printKubeProxyVersion(PrintStream out, String value) {
        if (value.equalsIgnoreCase("raw")) {
            String[] parts = KUBERNETES_VERSION.substring(1).split("\\.");
            out.printf(Locale.ROOT, "version.Info{Major:\"%s\", Minor:\"%s\", GitVersion:\"%s\", GitCommit:\"%s\", "
                    + "GitTreeState:\"clean\", BuildDate:\"\", GoVersion:\"java%s\", Compiler:\"winproxy\", "
                    + "Platform:\"%s\"}%n", parts[0], parts[1], KUBERNETES_VERSION, "winproxy-" + version(),
                    System.getProperty("java.version"), platform());
            return;
        }
        if (!value.equalsIgnoreCase("true")) {
            throw new UsageException("--version: invalid value \"" + value + "\" (want true, false or raw)");
        }
        out.println("Kubernetes " + KUBERNETES_VERSION);
        out.println("winproxy " + version() + " (java " + System.getProperty("java.version") + ")");
    }

    /** Go's GOOS/GOARCH spelling of this platform, e.g. windows/amd64. */
    static String platform() {
        return BuildInfo.platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
    }
}
