package io.winproxy.agent.metrics;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmCompilationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryPoolAllocationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The generic metrics every Kubernetes component serves, for a JVM: {@code process_*} (the Prometheus client's
 * {@code ProcessMetrics}, or {@link WindowsProcessMetrics} on Windows where that one lacks memory and handles),
 * {@code jvm_*} in place of Go's {@code go_*} (the client's JVM instrumentation), {@code go_goroutines} as the live
 * JVM thread count (so that the kube-proxy dashboard's "Goroutines" panel shows threads), and
 * {@code kubernetes_build_info}.
 */
final class RuntimeMetrics {
    private RuntimeMetrics() {
    }

    /**
     * @param windows whether this is Windows (the {@code process_*} source)
     * @param kernel32 loads the Win32 binding; called only when {@code windows}
     */
    static void register(PrometheusRegistry registry, BuildInfo build, boolean windows,
                         Supplier<Win32Process> kernel32) {
        if (windows) {
            WindowsProcessMetrics.register(registry, kernel32.get(), ManagementFactory.getOperatingSystemMXBean(),
                    ManagementFactory.getRuntimeMXBean());
        } else {
            ProcessMetrics.builder().register(registry);
        }
        JvmThreadsMetrics.builder().register(registry);
        JvmBufferPoolMetrics.builder().register(registry);
        JvmClassLoadingMetrics.builder().register(registry);
        JvmCompilationMetrics.builder().register(registry);
        JvmGarbageCollectorMetrics.builder().register(registry);
        JvmMemoryPoolAllocationMetrics.builder().register(registry);
        JvmMemoryMetrics.builder().register(registry);
        JvmRuntimeInfoMetric.builder().register(registry);

        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        GaugeWithCallback.builder().name("go_goroutines")
                .help("Number of goroutines that currently exist. winproxy: the JVM's live threads "
                        + "(jvm_threads_current).")
                .callback(cb -> cb.call(threads.getThreadCount())).register(registry);

        Info info = Info.builder().name("kubernetes_build_info")
                .help("[ALPHA] A metric with a constant '1' value labeled by major, minor, git version, git commit, "
                        + "git tree state, build date, Go version, and compiler from which Kubernetes was built, and "
                        + "platform on which it is running.")
                .labelNames("major", "minor", "git_version", "git_commit", "git_tree_state", "build_date",
                        "go_version", "compiler", "platform")
                .register(registry);
        info.addLabelValues(build.major(), build.minor(), build.kubernetesVersion(),
                "winproxy-" + build.winproxyVersion(), "clean", "", "java" + build.javaVersion(), "winproxy",
                build.platform());
    }

    /** Whether {@code os.name} names Windows. */
    static boolean isWindows(String osName) {
        return osName != null && osName.toLowerCase(Locale.ROOT).startsWith("windows");
    }
}
