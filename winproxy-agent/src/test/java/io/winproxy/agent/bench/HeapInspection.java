package io.winproxy.agent.bench;

import java.lang.management.ManagementFactory;

/**
 * What the node mode's agent process prints of its own memory when asked ({@link NodeAgentProcess#inspect}): a class
 * histogram, the native memory summary and a heap dump, each only when its option is set.
 */
final class HeapInspection {
    private HeapInspection() {
    }

    /**
     * With {@code -Dscale.histogram=N}, prints the N classes holding the most live heap (a full GC first), as
     * {@code jcmd PID GC.class_histogram} does; for finding what a scenario's heap is made of.
     */
    static void histogram(String when) {
        int top = Integer.getInteger("scale.histogram", 0);
        if (top <= 0) {
            return;
        }
        try {
            Object text = ManagementFactory.getPlatformMBeanServer().invoke(
                    new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            String[] lines = String.valueOf(text).split("\n");
            System.out.println("class histogram, " + when + ":");
            for (int i = 0; i < Math.min(lines.length, top + 3); i++) {
                System.out.println(lines[i]);
            }
            System.out.println(lines[lines.length - 1]);
            System.out.println("live threads: " + Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                    .sorted().toList());
        } catch (javax.management.JMException e) {
            System.out.println("class histogram unavailable: " + e);
        }
    }

    /**
     * With {@code -Dscale.heapDump=DIR}, writes the live heap (a full GC first) to {@code DIR/<scenario>.hprof}, as
     * {@code jcmd PID GC.heap_dump} does: for finding which objects hold what the histogram counts.
     */
    static void dump(String when) {
        String dir = System.getProperty("scale.heapDump", "");
        if (dir.isEmpty()) {
            return;
        }
        java.nio.file.Path file = java.nio.file.Path.of(dir, when.replaceAll("[^A-Za-z0-9]+", "-") + ".hprof");
        try {
            java.nio.file.Files.createDirectories(file.getParent());
            java.nio.file.Files.deleteIfExists(file);
            ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
                    .dumpHeap(file.toString(), true);
            System.out.println("heap dump, " + when + ": " + file);
        } catch (java.io.IOException e) {
            System.out.println("heap dump unavailable: " + e);
        }
    }

    /**
     * With {@code -XX:NativeMemoryTracking=summary} among the JVM options, prints {@code VM.native_memory summary}
     * (as {@code jcmd PID VM.native_memory summary} does): where the resident set goes, heap and native areas.
     */
    static void nativeMemory(String when) {
        if (ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .noneMatch(a -> a.startsWith("-XX:NativeMemoryTracking=") && !a.endsWith("=off"))) {
            return;
        }
        try {
            Object text = ManagementFactory.getPlatformMBeanServer().invoke(
                    new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary", "scale=MB"}}, new String[] {String[].class.getName()});
            System.out.println("native memory, " + when + ":");
            for (String line : String.valueOf(text).split("\n")) {
                if (line.startsWith("Total") || line.startsWith("-")) {
                    System.out.println(line.trim());
                }
            }
        } catch (javax.management.JMException e) {
            System.out.println("native memory summary unavailable: " + e);
        }
    }
}
