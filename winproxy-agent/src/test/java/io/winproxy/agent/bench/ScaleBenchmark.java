package io.winproxy.agent.bench;

import ch.qos.logback.classic.Level;
import java.io.PrintStream;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scale benchmark (docs/performance.md): the real sync loop (trackers, policy, plan, dataplane) against the HNS
 * emulator, for each cluster size and echo profile, through five scenarios (see {@link ScaleRun}). Prints the
 * native calls of each and a PASS/FAIL line per call-count target, then a summary table; exits with status 1 when a
 * target is missed or a run fails (an {@link OutOfMemoryError} included), else 0.
 *
 * <p>Not a test (the name does not end in Test or IT): run it with the {@code scale} Maven profile. Settings, as
 * system properties:
 * <ul>
 *   <li>{@code scale.services}: cluster sizes, comma-separated (default {@code 1000,5000,10000})</li>
 *   <li>{@code scale.profiles}: echo profiles (default {@code WS2019,WS2022,WS2025}; also {@code VERBATIM})</li>
 *   <li>{@code scale.endpoints}: endpoints per Service (default 10)</li>
 *   <li>{@code scale.driftBudget}: native calls a no-op resync may make beyond its 3 enumerates, the network
 *       re-read included (default 30)</li>
 *   <li>{@code scale.log}: the agent's log level (default WARN)</li>
 *   <li>{@code scale.mode}: {@code loop} (the sync loop fed directly, the default), {@code node} (the whole agent
 *       process path with informers, see {@link NodeRun}) or {@code loop,node}</li>
 * </ul>
 */
public final class ScaleBenchmark {
    /** The heap the whole run must fit in. */
    static final long HEAP_TARGET = 256L * 1024 * 1024;
    private static final int WARM_UP_SERVICES = 200;

    private final PrintStream out;
    private final List<ScenarioResult> results = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();

    private ScaleBenchmark(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME))
                .setLevel(Level.toLevel(System.getProperty("scale.log", "WARN"), Level.WARN));
        List<Integer> sizes = Arrays.stream(System.getProperty("scale.services", "1000,5000,10000").split(","))
                .map(String::trim).map(Integer::valueOf).toList();
        List<EchoPreset> profiles = Arrays.stream(System.getProperty("scale.profiles", "WS2019,WS2022,WS2025")
                .split(",")).map(EchoPreset::parse).toList();
        int endpoints = Integer.getInteger("scale.endpoints", 10);
        int driftBudget = Integer.getInteger("scale.driftBudget", 30);
        List<String> modes = Arrays.stream(System.getProperty("scale.mode", "loop").split(",")).map(String::trim)
                .toList();
        if (modes.isEmpty() || !List.of("loop", "node").containsAll(modes)) {
            System.err.println("scale.mode must be loop, node or loop,node; got " + System.getProperty("scale.mode"));
            System.exit(2);
        }

        ScaleBenchmark bench = new ScaleBenchmark(System.out);
        boolean ok = bench.run(sizes, profiles, endpoints, driftBudget, modes);
        System.exit(ok ? 0 : 1);
    }

    private boolean run(List<Integer> sizes, List<EchoPreset> profiles, int endpoints, int driftBudget,
                        List<String> modes) {
        Runtime rt = Runtime.getRuntime();
        out.printf(Locale.ROOT, "winproxy scale benchmark, %s, Java %s, %d CPUs, max heap %s, drift budget %d%n",
                LocalDate.now(), System.getProperty("java.version"), rt.availableProcessors(), mib(rt.maxMemory()),
                driftBudget);
        if (modes.contains("loop")) {
            warmUp(profiles.get(0), endpoints, driftBudget);
        }
        for (int size : sizes) {
            for (EchoPreset profile : profiles) {
                if (modes.contains("node")) {
                    runNode(new ScaleCluster(size, endpoints), profile);
                }
                if (!modes.contains("loop")) {
                    continue;
                }
                ScaleRun run = new ScaleRun(new ScaleCluster(size, endpoints), profile, driftBudget, this::print);
                String label = ScaleRun.num(size) + " services x " + endpoints + " endpoints, " + profile;
                try {
                    run.run();
                } catch (OutOfMemoryError e) {
                    // run() has dropped the agent and the emulator on its way out, so there is heap to go on with.
                    failures.add("FAIL heap: " + label + ": OutOfMemoryError during the " + run.scenario()
                            + " (max heap " + mib(rt.maxMemory()) + ")");
                    out.println(failures.get(failures.size() - 1));
                } catch (Exception e) {
                    failures.add("FAIL " + label + ": " + run.scenario() + " failed: " + e);
                    out.println(failures.get(failures.size() - 1));
                    e.printStackTrace(out);
                }
            }
        }
        printSummary();
        return failures.isEmpty() && results.stream().allMatch(ScenarioResult::pass);
    }

    /** The node mode ({@link NodeRun}) for one cluster size and profile. */
    private void runNode(ScaleCluster cluster, EchoPreset profile) {
        NodeRun run = new NodeRun(cluster, profile, this::print);
        String label = ScaleRun.num(cluster.services()) + " services, node mode, " + profile;
        try {
            run.run();
        } catch (OutOfMemoryError e) {
            failures.add("FAIL heap: " + label + ": OutOfMemoryError during the " + run.scenario()
                    + " (max heap " + mib(Runtime.getRuntime().maxMemory()) + ")");
            out.println(failures.get(failures.size() - 1));
        } catch (Exception e) {
            failures.add("FAIL " + label + ": " + run.scenario() + " failed: " + e);
            out.println(failures.get(failures.size() - 1));
            e.printStackTrace(out);
        }
    }

    /**
     * Runs the scenarios once on a small cluster, unreported, so that the first measured run's wall times do not
     * include class loading and JIT compilation.
     */
    private void warmUp(EchoPreset profile, int endpoints, int driftBudget) {
        try {
            new ScaleRun(new ScaleCluster(WARM_UP_SERVICES, endpoints), profile, driftBudget, r -> { }).run();
        } catch (Exception e) {
            failures.add("FAIL warm-up (" + WARM_UP_SERVICES + " services, " + profile + "): " + e);
        }
    }

    private void print(ScenarioResult r) {
        results.add(r);
        out.printf(Locale.ROOT, "%n--- %s services | %s (HNS %s) | %s ---%n", ScaleRun.num(r.services()),
                r.profile(), r.profile().version(), r.scenario());
        out.printf(Locale.ROOT, "wall %s ms (%s ms of it in HNS calls) | heap after GC %s | objects created %s%n",
                ScaleRun.num(r.wallMillis()), ScaleRun.num(r.hnsMillis()), mib(r.heapAfterGc()),
                ScaleRun.num(r.created()));
        out.printf(Locale.ROOT, "native calls %s: reads %s (enumerate, open, query, close), writes %s (create,"
                + " modify, delete)%n", ScaleRun.num(r.total()), ScaleRun.num(r.reads()), ScaleRun.num(r.writes()));
        for (Map.Entry<String, Integer> e : r.callsByExport().entrySet()) {
            out.printf(Locale.ROOT, "  %-34s %,10d%n", e.getKey(), e.getValue());
        }
        r.notes().forEach((k, v) -> out.printf(Locale.ROOT, "%s: %s%n", k, v));
        out.println("native-call listener: " + r.listener());
        r.targets().forEach(t -> out.println(t.line()));
        out.flush();
    }

    private void printSummary() {
        out.printf(Locale.ROOT, "%n| Services | profile | scenario | native calls | reads | writes | created"
                + " | wall (ms) | in HNS (ms) | heap after GC | targets |%n");
        out.println("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
        for (ScenarioResult r : results) {
            List<String> missed = r.targets().stream().filter(t -> !t.pass())
                    .map(t -> t.what() + " " + ScaleRun.num(t.actual()) + " > " + ScaleRun.num(t.limit())).toList();
            out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                    ScaleRun.num(r.services()), r.profile(), r.scenario(), ScaleRun.num(r.total()),
                    ScaleRun.num(r.reads()), ScaleRun.num(r.writes()), ScaleRun.num(r.created()),
                    ScaleRun.num(r.wallMillis()), ScaleRun.num(r.hnsMillis()), mib(r.heapAfterGc()),
                    missed.isEmpty() ? "PASS" : "FAIL: " + String.join("; ", missed));
        }
        out.println();
        long maxHeap = Runtime.getRuntime().maxMemory();
        boolean outOfMemory = failures.stream().anyMatch(f -> f.startsWith("FAIL heap"));
        if (outOfMemory) {
            out.println("FAIL heap: a run did not fit in " + mib(maxHeap));
        } else if (maxHeap <= HEAP_TARGET) {
            out.println("PASS heap: every run completed with max heap " + mib(maxHeap) + " (target "
                    + mib(HEAP_TARGET) + ")");
        } else {
            out.println("SKIP heap: max heap " + mib(maxHeap) + " is above the target " + mib(HEAP_TARGET)
                    + "; the scale profile runs with -Xmx256m");
        }
        failures.forEach(out::println);
        long missed = results.stream().filter(r -> !r.pass()).count();
        out.printf(Locale.ROOT, "%s: %d of %d scenarios missed a target, %d runs failed%n",
                missed == 0 && failures.isEmpty() ? "PASS" : "FAIL", missed, results.size(), failures.size());
        out.flush();
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }
}
