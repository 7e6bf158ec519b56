package io.winproxy.agent.metrics;

import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What is running: the Kubernetes release whose kube-proxy behaviour winproxy matches, winproxy's own version, and
 * the Java runtime. Served as {@code kubernetes_build_info} (the labels kube-proxy's {@code --version=raw} prints,
 * filled as winproxy's {@code --version=raw} fills them) and logged once at start.
 *
 * @param kubernetesVersion e.g. {@code v1.33.0}
 * @param winproxyVersion   the jar's version, e.g. {@code 0.1.0}, or {@code dev}
 * @param javaVersion       {@code java.version} of the running JVM
 * @param javaVendor        {@code java.vendor} of the running JVM
 * @param platform          Go's {@code GOOS/GOARCH} spelling of the platform, e.g. {@code windows/amd64}
 */
public record BuildInfo(String kubernetesVersion, String winproxyVersion, String javaVersion, String javaVendor,
                        String platform) {
    private static final Logger logger = LoggerFactory.getLogger(BuildInfo.class);

    /** This process: the given versions with the running JVM and platform. */
    public static BuildInfo of(String kubernetesVersion, String winproxyVersion) {
        return new BuildInfo(kubernetesVersion, winproxyVersion, System.getProperty("java.version", ""),
                System.getProperty("java.vendor", ""),
                platform(System.getProperty("os.name", ""), System.getProperty("os.arch", "")));
    }

    /** Go's {@code GOOS/GOARCH} for a Java {@code os.name} and {@code os.arch}. */
    public static String platform(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        String goos = os.startsWith("windows") ? "windows" : os.startsWith("mac") ? "darwin" : os;
        String goarch = arch.equals("x86_64") || arch.equals("amd64") ? "amd64"
                : arch.equals("aarch64") ? "arm64" : arch;
        return goos + "/" + goarch;
    }

    /** The major version of {@link #kubernetesVersion()} ({@code 1} of {@code v1.33.0}). */
    public String major() {
        return part(0);
    }

    /** The minor version of {@link #kubernetesVersion()} ({@code 33} of {@code v1.33.0}). */
    public String minor() {
        return part(1);
    }

    private String part(int index) {
        String[] parts = kubernetesVersion.replaceFirst("^v", "").split("\\.");
        return parts.length > index ? parts[index] : "";
    }

    /** The one line logged at start. */
    public String versionLine() {
        return "winproxy " + winproxyVersion + ", kube-proxy compatible with Kubernetes " + kubernetesVersion
                + " (kernelspace mode), Java " + javaVersion + " (" + javaVendor + ") on " + platform;
    }

    /** Logs the parts of {@link #versionLine()} at INFO, as kube-proxy's "Version info"; call once at start. */
    public void logVersion() {
        logger.atInfo().setMessage("Version info").addKeyValue("version", winproxyVersion)
                .addKeyValue("kubernetesVersion", kubernetesVersion).addKeyValue("java", javaVersion)
                .addKeyValue("javaVendor", javaVendor).addKeyValue("platform", platform).log();
    }
}
