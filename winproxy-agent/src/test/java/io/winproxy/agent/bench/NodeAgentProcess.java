package io.winproxy.agent.bench;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.winproxy.agent.cli.ProxyAgent;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.sync.SyncReport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * The node mode's agent in a JVM of its own, as on a node: {@link ProxyAgent} with its informers, sync thread,
 * dataplane and journal, talking to the API server process and to the emulated host process
 * ({@link HnsHostProcess#connect}) over loopback. Nothing of the benchmark lives in it (the cluster model, the
 * benchmark's own Kubernetes client and the call journal stay in the benchmark's JVM), so its resident set and its
 * heap are the agent's. It runs with the benchmark JVM's own options (the shipped {@code jvm.options} and the
 * {@code -Dscale.jvmArg*} additions).
 *
 * <p>The benchmark side ({@link #start}) drives it through standard input, one command a line, and reads its
 * standard output: lines starting with {@value #MARK} are the agent's sync reports ({@link Sync}) and the answers to
 * commands; every other line (the agent's log, a class histogram) is passed on to the benchmark's output. Its resident
 * set is read from {@code /proc/PID/status} ({@link Rss}).
 */
final class NodeAgentProcess implements AutoCloseable {
    private static final String MARK = "@@bench ";
    private static final String SYNC_THREAD = "winproxy-sync";

    /**
     * What the benchmark reads of one {@link SyncReport}: whether the sync completed, its counts, the desired
     * objects, and the time of its phases in milliseconds.
     */
    record Sync(boolean complete, long created, long modified, long deleted, int failed, int deferred,
                int loadBalancers, int remoteEndpoints, long observe, long policy, long plan, long apply) {
        static Sync of(SyncReport r) {
            return new Sync(r.result().complete(), r.result().created(), r.result().modified(), r.result().deleted(),
                    r.result().failures().size(), r.result().deferred().size(),
                    r.snapshot().desired().loadBalancers().size(), r.snapshot().desired().remoteEndpoints().size(),
                    r.timings().observe().toMillis(), r.timings().policy().toMillis(),
                    r.timings().plan().toMillis(), r.timings().apply().toMillis());
        }

        String line() {
            return "sync " + complete + " " + created + " " + modified + " " + deleted + " " + failed + " " + deferred
                    + " " + loadBalancers + " " + remoteEndpoints + " " + observe + " " + policy + " " + plan + " "
                    + apply;
        }

        static Sync parse(String[] f) {
            return new Sync(Boolean.parseBoolean(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                    Long.parseLong(f[4]), Integer.parseInt(f[5]), Integer.parseInt(f[6]), Integer.parseInt(f[7]),
                    Integer.parseInt(f[8]), Long.parseLong(f[9]), Long.parseLong(f[10]), Long.parseLong(f[11]),
                    Long.parseLong(f[12]));
        }
    }

    private final Process process;
    private final BlockingQueue<Sync> syncs = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

    private NodeAgentProcess(Process process) {
        this.process = process;
        Thread reading = new Thread(this::read, "agent-process-output");
        reading.setDaemon(true);
        reading.start();
    }

    /**
     * Starts the agent against the API server at {@code apiUrl} and the emulated host on {@code hostPort}, mapping
     * {@code archive} when it is not null ({@link ClassDataArchive}).
     */
    static NodeAgentProcess start(String apiUrl, int hostPort, Path stateDir, ClassDataArchive archive)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + "/bin/java");
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        String classPath = classPath();
        if (archive != null) {
            command.add("-XX:SharedArchiveFile=" + archive.file());
            classPath = archive.classPath();
        }
        command.addAll(List.of("-cp", classPath, NodeAgentProcess.class.getName(), apiUrl, Integer.toString(hostPort),
                stateDir.toString()));
        return new NodeAgentProcess(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
    }

    /**
     * The agent's class path: {@code scale.agentClasspath} (the module's classes and test classes and its runtime
     * dependencies, as on a node; the scale profile sets it), else the benchmark's own.
     */
    static String classPath() {
        String agent = System.getProperty("scale.agentClasspath", "");
        return agent.isEmpty() ? System.getProperty("java.class.path") : agent;
    }

    long pid() {
        return process.pid();
    }

    /** The next sync report, or null when none came within {@code timeout}. */
    Sync nextSync(Duration timeout) throws InterruptedException {
        return syncs.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    void clearSyncs() {
        syncs.clear();
    }

    Rss rss() {
        return Rss.of(process.pid());
    }

    void resetPeakRss() {
        Rss.resetPeak(process.pid());
    }

    /** {@code {process CPU ns, sync thread id, sync thread CPU ns}} ({@code -1, 0} for the thread when there is none). */
    long[] cpu() {
        return longs(ask("cpu"));
    }

    /** {@code {wall ms, CPU ms}} the agent's threads spent inside its HNS client since the last {@link #resetTap}. */
    long[] tap() {
        return longs(ask("tap"));
    }

    void resetTap() {
        ask("tap-reset");
    }

    /** The agent process's heap after two full collections. */
    long heapAfterGc() {
        return Long.parseLong(ask("heap"));
    }

    /** The agent process's JVM options. */
    String jvmOptions() {
        return ask("options");
    }

    /** Prints the agent's class histogram ({@code -Dscale.histogram}), native memory and heap dump as asked. */
    void inspect(String when) {
        ask("inspect " + when);
    }

    /** Stops the agent (its {@code close()}, as on a service stop) and waits for its JVM to end. */
    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                process.getOutputStream().write("stop\n".getBytes(StandardCharsets.UTF_8));
                process.getOutputStream().close();
            } catch (IOException e) {
                process.destroy();
            }
        }
        // The agent's close() flushes its journal: longer than a helper's end.
        ApiServerProcess.awaitEnd(process, 60);
    }

    private synchronized String ask(String command) {
        try {
            process.getOutputStream().write((command + "\n").getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().flush();
            String answer = answers.poll(5, TimeUnit.MINUTES);
            if (answer == null) {
                throw new IllegalStateException("the agent process did not answer '" + command + "'");
            }
            return answer;
        } catch (IOException e) {
            throw new UncheckedIOException("the agent process ended (" + command + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void read() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (!line.startsWith(MARK)) {
                    System.out.println(line);
                } else if (line.startsWith(MARK + "sync ")) {
                    syncs.add(Sync.parse(line.substring(MARK.length()).split(" ")));
                } else {
                    answers.add(line.substring(MARK.length()));
                }
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    private static long[] longs(String answer) {
        String[] f = answer.split(" ");
        long[] out = new long[f.length];
        for (int i = 0; i < f.length; i++) {
            out[i] = Long.parseLong(f[i]);
        }
        return out;
    }

    /** The agent process: {@code apiUrl hostPort stateDir}; commands on standard input until {@code stop} or its end. */
    public static void main(String[] args) throws Exception {
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
                .setLevel(Level.toLevel(System.getProperty("scale.log", "WARN"), Level.WARN));
        PrintStream out = System.out;
        Object printing = new Object();
        try (HnsHostProcess host = HnsHostProcess.connect(Integer.parseInt(args[1]))) {
            HnsClientTap tap = new HnsClientTap(host.client(), false);
            ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse(
                    "--hostname-override=" + ScaleCluster.THIS_NODE, "--network-name=" + ScaleCluster.NETWORK,
                    "--feature-gates=WinOverlay=true", "--source-vip=" + ScaleCluster.SOURCE_VIP,
                    "--master=" + args[0], "--healthz-bind-address=", "--metrics-bind-address="), Map.of());
            ProxyAgent agent = ProxyAgent.start(new ProxyAgent.Setup(config, NodeFacts.of(config, ScaleCluster.NETWORK),
                    tap.client(), HostMacLookup.emulated(), Path.of(args[2]), null, List.of(), report -> {
                        String line = MARK + Sync.of(report).line();
                        synchronized (printing) {
                            out.println(line);
                            out.flush();
                        }
                    }, null));
            try {
                BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                String command;
                while ((command = commands.readLine()) != null && !command.equals("stop")) {
                    String answer = answer(command, tap);
                    synchronized (printing) {
                        out.println(MARK + answer);
                        out.flush();
                    }
                }
            } finally {
                agent.close();
            }
        }
        System.exit(0);
    }

    private static String answer(String command, HnsClientTap tap) {
        return switch (command.split(" ", 2)[0]) {
            case "cpu" -> {
                long[] thread = syncThread();
                yield ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                        .getProcessCpuTime() + " " + thread[0] + " " + thread[1];
            }
            case "tap" -> tap.millisInClient() + " " + tap.cpuMillisInClient();
            case "tap-reset" -> {
                tap.reset();
                yield "ok";
            }
            case "heap" -> {
                System.gc();
                System.gc();
                yield Long.toString(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
            }
            case "options" -> String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments());
            case "inspect" -> {
                String when = command.substring("inspect ".length());
                HeapInspection.histogram(when);
                HeapInspection.nativeMemory(when);
                HeapInspection.dump(when);
                yield "ok";
            }
            default -> "unknown command " + command;
        };
    }

    /** The agent's live sync thread as {@code {id, CPU nanoseconds}}; {@code {-1, 0}} when there is none. */
    private static long[] syncThread() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && SYNC_THREAD.equals(info.getThreadName())) {
                long t = threads.getThreadCpuTime(info.getThreadId());
                if (t >= 0) {
                    return new long[] {info.getThreadId(), t};
                }
            }
        }
        return new long[] {-1, 0};
    }
}
