package io.winproxy.agent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.winproxy.agent.Main;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent as a separate JVM (this test class path, {@link Main}) for the process-level ITs, on an emulated overlay
 * host kept in a state file: node win-a (192.168.1.11, pods 10.244.1.0/24) and a second node win-b.
 */
final class AgentProcess {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private AgentProcess() {
    }

    /** The flags that name the overlay node win-a: its API server, HNS network, source VIP and HNS state file. */
    static List<String> overlayFlags(Path kubeconfig, String network, String sourceVip, Path hnsState) {
        return List.of("--kubeconfig=" + kubeconfig, "--hostname-override=win-a", "--network-name=" + network,
                "--source-vip=" + sourceVip, "--feature-gates=WinOverlay=true", "--hns-state=" + hnsState);
    }

    /** The flags of a running proxy: health and metrics servers on the given loopback ports, its sync periods. */
    static List<String> serverFlags(int healthPort, int metricsPort, Duration syncPeriod) {
        return List.of("--healthz-bind-address=127.0.0.1:" + healthPort,
                "--metrics-bind-address=127.0.0.1:" + metricsPort,
                "--iptables-sync-period=" + syncPeriod.toSeconds() + "s", "--iptables-min-sync-period=200ms");
    }

    /** The shipped JVM defaults (issue 27), which every launcher passes first. */
    static final Path JVM_OPTIONS = Path.of("src", "main", "dist", "jvm.options").toAbsolutePath();

    /**
     * Starts {@code java @jvm.options -Xmx<heap> -cp <class path> Main <flags...>}, stdout and stderr to {@code log}:
     * the shipped defaults, with the heap overridden as an operator's option would.
     */
    @SafeVarargs
    static Process start(Path log, String heap, List<String>... flags) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "@" + JVM_OPTIONS, "-Xmx" + heap, "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        for (List<String> group : flags) {
            command.addAll(group);
        }
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** {@code plan -o json} (in-process) with {@code overlayFlags}, or null when it fails (e.g. HNS is locked). */
    static JsonNode plan(List<String> overlayFlags) throws IOException {
        List<String> args = new ArrayList<>(List.of("plan"));
        args.addAll(overlayFlags);
        args.addAll(List.of("-o", "json"));
        CliRunner.Result r = CliRunner.run(args.toArray(String[]::new));
        return r.exitCode() != 0 ? null : MAPPER.readTree(r.out());
    }

    /** Copies the {@code agent-*.log} files of {@code dir} to {@code keep}, so they outlive a temporary directory. */
    static void keepLogs(Path dir, Path keep) throws IOException {
        Files.createDirectories(keep);
        try (var logs = Files.newDirectoryStream(dir, "agent-*.log")) {
            for (Path log : logs) {
                Files.copy(log, keep.resolve(log.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /**
     * The emulated overlay host of win-a: its network (win-b's pods behind {@code remoteSubnet}) and the host
     * endpoint holding the source VIP; the caller adds the local pods.
     */
    static EmulatedHost overlayHost(HnsEmulator hns, String network, String sourceVip, String remoteSubnet) {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, network, "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11"),
                new EmulatedHost.Node("win-b", remoteSubnet, "192.168.1.12")));
        host.ensureHostEndpoint(sourceVip);
        return host;
    }

    /** A Node with a pod CIDR and an InternalIP. */
    static Node node(String name, String podCidr, String ip) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().withPodCIDR(podCidr)
                .endSpec().withNewStatus().addNewAddress().withType("InternalIP").withAddress(ip).endAddress()
                .endStatus().build();
    }
}
