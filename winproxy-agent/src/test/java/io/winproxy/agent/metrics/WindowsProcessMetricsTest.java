package io.winproxy.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import com.sun.jna.Pointer;
import com.sun.jna.platform.win32.BaseTSD.SIZE_T;
import com.sun.jna.platform.win32.WinNT.HANDLE;
import com.sun.jna.ptr.IntByReference;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.RuntimeMXBean;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Windows process metrics through a mocked kernel32 (the Win32 edge); everything above it is real. */
class WindowsProcessMetricsTest {
    private static final HANDLE CURRENT_PROCESS = new HANDLE(Pointer.createConstant(-1));

    private final Win32Process kernel32 = mock(Win32Process.class);
    private final RuntimeMXBean runtime = mock(RuntimeMXBean.class);
    private final PrometheusRegistry registry = new PrometheusRegistry();

    @Test
    void readsWorkingSetPrivateBytesAndHandlesAsGosClientDoesOnWindows() throws IOException {
        when(kernel32.GetCurrentProcess()).thenReturn(CURRENT_PROCESS);
        when(kernel32.K32GetProcessMemoryInfo(any(), any(), anyInt())).thenAnswer(call -> {
            Win32Process.ProcessMemoryCountersEx counters = call.getArgument(1);
            assertThat(call.<HANDLE>getArgument(0)).isSameAs(CURRENT_PROCESS);
            assertThat(call.<Integer>getArgument(2)).as("cb is the structure's size").isEqualTo(counters.size());
            counters.WorkingSetSize = new SIZE_T(150_000_000L);
            counters.PrivateUsage = new SIZE_T(400_000_000L);
            return true;
        });
        when(kernel32.GetProcessHandleCount(any(), any())).thenAnswer(call -> {
            call.<IntByReference>getArgument(1).setValue(812);
            return true;
        });
        when(runtime.getStartTime()).thenReturn(1_700_000_000_500L);

        Map<String, PrometheusTextParser.Family> families = scrape();

        assertThat(value(families, "process_resident_memory_bytes")).isEqualTo(150_000_000);
        assertThat(value(families, "process_virtual_memory_bytes")).isEqualTo(400_000_000);
        assertThat(value(families, "process_open_fds")).isEqualTo(812);
        assertThat(value(families, "process_max_fds")).isEqualTo(16_777_216);
        assertThat(value(families, "process_start_time_seconds")).isEqualTo(1_700_000_000.5);
        assertThat(families.get("process_cpu_seconds_total").type()).isEqualTo("counter");
        assertThat(value(families, "process_cpu_seconds_total")).isPositive();
    }

    @Test
    void aFailingCallLeavesItsSeriesOutInsteadOfFailingTheScrape() throws IOException {
        when(kernel32.GetCurrentProcess()).thenReturn(CURRENT_PROCESS);
        when(kernel32.K32GetProcessMemoryInfo(any(), any(), anyInt())).thenReturn(false);
        when(kernel32.GetProcessHandleCount(any(), any())).thenThrow(new UnsatisfiedLinkError("no such export"));

        Map<String, PrometheusTextParser.Family> families = scrape();

        assertThat(families).doesNotContainKeys("process_resident_memory_bytes", "process_virtual_memory_bytes",
                "process_open_fds");
        assertThat(value(families, "process_max_fds")).isEqualTo(16_777_216);
    }

    private Map<String, PrometheusTextParser.Family> scrape() throws IOException {
        WindowsProcessMetrics.register(registry, kernel32, ManagementFactory.getOperatingSystemMXBean(), runtime);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return PrometheusTextParser.parse(out.toString(StandardCharsets.UTF_8));
    }

    private static double value(Map<String, PrometheusTextParser.Family> families, String name) {
        return families.get(name).value(name, Map.of());
    }
}
