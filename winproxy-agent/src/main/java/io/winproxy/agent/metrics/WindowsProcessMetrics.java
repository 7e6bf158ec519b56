package io.winproxy.agent.metrics;

import com.sun.jna.platform.win32.BaseTSD.SIZE_T;
import com.sun.jna.platform.win32.WinNT.HANDLE;
import com.sun.jna.ptr.IntByReference;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.RuntimeMXBean;
import java.util.OptionalDouble;

/**
 * The standard {@code process_*} metrics on Windows, where the Prometheus client's {@code ProcessMetrics} reports only
 * CPU time and start time (it reads memory from {@code /proc} and file descriptors from a Unix-only bean). The values
 * are those of Go's client on Windows, so kube-proxy's dashboards read them alike:
 * {@code process_resident_memory_bytes} is the working set, {@code process_virtual_memory_bytes} the private bytes
 * (commit charge), {@code process_open_fds} the open handle count, {@code process_max_fds} Windows' fixed limit of
 * 16,777,216 handles per process. CPU time comes from the JVM's operating-system bean and start time from its runtime
 * bean.
 *
 * <p>Each scrape makes three kernel32 calls. A call that fails leaves its series out of that scrape (nothing thrown).
 */
final class WindowsProcessMetrics {
    /** Windows' handle limit, as Go's process collector reports it. */
    static final double MAX_HANDLES = 16 * 1024 * 1024;

    private final Win32Process kernel32;

    private WindowsProcessMetrics(Win32Process kernel32) {
        this.kernel32 = kernel32;
    }

    static void register(PrometheusRegistry registry, Win32Process kernel32, OperatingSystemMXBean os,
                         RuntimeMXBean runtime) {
        WindowsProcessMetrics metrics = new WindowsProcessMetrics(kernel32);
        CounterWithCallback.builder().name("process_cpu_seconds_total")
                .help("Total user and system CPU time spent in seconds.")
                .callback(cb -> {
                    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
                        long nanos = sun.getProcessCpuTime();
                        if (nanos >= 0) {
                            cb.call(nanos / 1e9);
                        }
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("process_start_time_seconds")
                .help("Start time of the process since unix epoch in seconds.")
                .callback(cb -> cb.call(runtime.getStartTime() / 1e3)).register(registry);
        GaugeWithCallback.builder().name("process_resident_memory_bytes")
                .help("Resident memory size in bytes (the working set).")
                .callback(cb -> metrics.memory(true).ifPresent(cb::call)).register(registry);
        GaugeWithCallback.builder().name("process_virtual_memory_bytes")
                .help("Virtual memory size in bytes (the private bytes, as Go's client reports on Windows).")
                .callback(cb -> metrics.memory(false).ifPresent(cb::call)).register(registry);
        GaugeWithCallback.builder().name("process_open_fds")
                .help("Number of open file descriptors (open handles on Windows).")
                .callback(cb -> metrics.handles().ifPresent(cb::call)).register(registry);
        GaugeWithCallback.builder().name("process_max_fds")
                .help("Maximum number of open file descriptors (Windows' per-process handle limit).")
                .callback(cb -> cb.call(MAX_HANDLES)).register(registry);
    }

    /** The working set ({@code resident}) or the private bytes, or empty when the call fails. */
    OptionalDouble memory(boolean resident) {
        try {
            HANDLE self = kernel32.GetCurrentProcess();
            Win32Process.ProcessMemoryCountersEx counters = new Win32Process.ProcessMemoryCountersEx();
            if (!kernel32.K32GetProcessMemoryInfo(self, counters, counters.cb)) {
                return OptionalDouble.empty();
            }
            SIZE_T value = resident ? counters.WorkingSetSize : counters.PrivateUsage;
            return value == null ? OptionalDouble.empty() : OptionalDouble.of(unsigned(value.longValue()));
        } catch (RuntimeException | LinkageError e) {
            return OptionalDouble.empty();
        }
    }

    /** The open handle count, or empty when the call fails. */
    OptionalDouble handles() {
        try {
            IntByReference count = new IntByReference();
            if (!kernel32.GetProcessHandleCount(kernel32.GetCurrentProcess(), count)) {
                return OptionalDouble.empty();
            }
            return OptionalDouble.of(Integer.toUnsignedLong(count.getValue()));
        } catch (RuntimeException | LinkageError e) {
            return OptionalDouble.empty();
        }
    }

    private static double unsigned(long value) {
        return value >= 0 ? value : (value >>> 1) * 2.0 + (value & 1);
    }
}
