package io.winproxy.agent.cli;

import io.winproxy.agent.metrics.BuildInfo;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/**
 * {@code winproxy version}: winproxy's own version, the Kubernetes release it matches and the Java runtime, e.g.
 * {@code winproxy 0.1.0 (kube-proxy v1.33.0, java 17.0.15)}. The root {@code --version} flag prints only what kube-proxy
 * prints (see {@link #printKubeProxyVersion}).
 */
@Command(name = "version", description = "Print winproxy's version, the Kubernetes release it matches and the Java "
        + "version.")
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
        root.context().out().println(versionLine());
        return 0;
    }

    /** What {@code winproxy version} prints: {@code winproxy VERSION (kube-proxy v1.N.M, java JAVA_VERSION)}. */
    static String versionLine() {
        return "winproxy " + version() + " (kube-proxy " + KUBERNETES_VERSION + ", java "
                + System.getProperty("java.version") + ")";
    }

    /**
     * The Kubernetes release whose kube-proxy behaviour winproxy matches (its flags, gates and defaults). Launchers
     * such as Calico's parse {@code kube-proxy --version} to decide on DSR and overlay support.
     */
    public static final String KUBERNETES_VERSION = "v1.33.0";

    /**
     * kube-proxy's {@code --version} output, exactly one line {@code Kubernetes v1.N.M} (PowerShell launchers capture
     * it with {@code $(kube-proxy.exe --version)} and match it as one string); with {@code raw}, the Go
     * {@code %#v} form of the {@code version.Info} of Kubernetes v1.33, whose {@code GitCommit} names winproxy's
     * version ({@code winproxy-0.1.0}), {@code GoVersion} the Java runtime and {@code Compiler} winproxy.
     *
     * @throws UsageException naming {@code --version} for any other value than true or raw
     */
    static void printKubeProxyVersion(PrintStream out, String value) {
        if (value.equalsIgnoreCase("raw")) {
            out.println(rawVersionInfo());
            return;
        }
        if (!value.equalsIgnoreCase("true")) {
            throw new UsageException("--version: invalid value \"" + value + "\" (want true, false or raw)");
        }
        out.println("Kubernetes " + KUBERNETES_VERSION);
    }

    /** The {@code --version=raw} line: every field of v1.33's {@code version.Info}, in its order. */
    static String rawVersionInfo() {
        String[] parts = KUBERNETES_VERSION.substring(1).split("\\.");
        return String.format(Locale.ROOT, "version.Info{Major:\"%s\", Minor:\"%s\", EmulationMajor:\"\", "
                        + "EmulationMinor:\"\", MinCompatibilityMajor:\"\", MinCompatibilityMinor:\"\", "
                        + "GitVersion:\"%s\", GitCommit:\"%s\", GitTreeState:\"clean\", BuildDate:\"\", "
                        + "GoVersion:\"java%s\", Compiler:\"winproxy\", Platform:\"%s\"}",
                parts[0], parts[1], KUBERNETES_VERSION, "winproxy-" + version(), System.getProperty("java.version"),
                platform());
    }

    /** Go's GOOS/GOARCH spelling of this platform, e.g. windows/amd64. */
    static String platform() {
        return BuildInfo.platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
    }
}
