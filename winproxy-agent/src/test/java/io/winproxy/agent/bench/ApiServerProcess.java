package io.winproxy.agent.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.kube.KubeClientFactory;
import io.winproxy.agent.kube.KubeClientSettings;
import io.winproxy.demo.CrudApiServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The node mode's API server, in a JVM of its own so that its heap (20,000 stored objects, and the lists it
 * serializes) is not counted as the agent's, as on a node. {@code main(services, endpointsPerService)} loads the scale
 * cluster ({@link ScaleObjects}) into fabric8's CRUD mock server, prints {@code READY <url> <millis>} and serves until
 * its standard input closes. {@link #start} runs it from the benchmark with the benchmark's class path.
 *
 * @param process    the server JVM
 * @param url        the API server's URL
 * @param loadMillis how long loading the cluster took
 */
record ApiServerProcess(Process process, String url, long loadMillis) implements AutoCloseable {

    /** Starts the server JVM (-Xmx1g) and waits until the cluster is loaded. */
    static ApiServerProcess start(ScaleCluster cluster) throws IOException {
        String java = System.getProperty("java.home") + "/bin/java";
        Process p = new ProcessBuilder(java, "-Xmx1g", "-cp", System.getProperty("java.class.path"),
                ApiServerProcess.class.getName(), Integer.toString(cluster.services()),
                Integer.toString(cluster.endpointsPerService())).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("READY ")) {
                String[] parts = line.split(" ");
                return new ApiServerProcess(p, parts[1], Long.parseLong(parts[2]));
            }
        }
        p.destroyForcibly();
        throw new IOException("the API server process ended before it was ready (exit " + p.exitValue() + ")");
    }

    @Override
    public void close() {
        process.destroy();
        awaitEnd(process);
    }

    /** Waits up to 10 s for a helper JVM asked to end, then kills it. */
    static void awaitEnd(Process process) {
        awaitEnd(process, 10);
    }

    /** Waits up to {@code seconds} for a JVM asked to end, then kills it. */
    static void awaitEnd(Process process, int seconds) {
        try {
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    public static void main(String[] args) throws Exception {
        ScaleCluster cluster = new ScaleCluster(Integer.parseInt(args[0]), Integer.parseInt(args[1]));
        BulkLoadCrudDispatcher store = new BulkLoadCrudDispatcher();
        try (CrudApiServer server = CrudApiServer.start(0, store);
             KubernetesClient client = new KubeClientFactory("winproxy-bench-loader")
                     .create(KubeClientSettings.forMaster(server.url()))) {
            long start = System.nanoTime();
            store.loading(true);
            client.resource(ScaleObjects.node(cluster.thisNode())).create();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < cluster.services(); i++) {
                int n = i;
                done.add(pool.submit(() -> {
                    client.resource(ScaleObjects.service(cluster.service(n))).create();
                    client.resource(ScaleObjects.slice(cluster.slice(n, -1))).create();
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
            store.loading(false);
            System.out.println("READY " + server.url() + " " + (System.nanoTime() - start) / 1_000_000);
            System.out.flush();
            // Serve until the benchmark closes our standard input (or kills us).
            while (System.in.read() >= 0) {
                // nothing to read; EOF ends the loop
            }
        }
    }
}
