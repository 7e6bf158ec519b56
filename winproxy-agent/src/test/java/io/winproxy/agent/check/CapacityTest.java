package io.winproxy.agent.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The capacity group against the emulated host's limits: the profile's backend limit and the port pool. */
class CapacityTest {
    @TempDir
    Path dir;

    /** A Windows Server 2019 host (HNS 10.1: 64 destinations per load balancer) with the cluster's network. */
    private Path ws2019Host() {
        Path state = dir.resolve("hns.json");
        HnsEmulator hns = HnsEmulator.builder().stateFile(state).version(new HnsVersion(10, 1)).build();
        new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-node-1").syncNetwork(TwoNodes.NODES);
        return state;
    }

    /** Nodes and one ClusterIP Service default/big with {@code backends} ready endpoints on win-node-2. */
    private Path cluster(int backends) throws IOException {
        Path manifests = Files.createDirectories(dir.resolve("cluster"));
        StringBuilder y = new StringBuilder();
        for (EmulatedHost.Node n : TwoNodes.NODES) {
            y.append("apiVersion: v1\nkind: Node\nmetadata:\n  name: ").append(n.name())
                    .append("\nspec:\n  podCIDR: ").append(n.podCidr()).append("\nstatus:\n  addresses:\n")
                    .append("    - type: InternalIP\n      address: ").append(n.internalIp()).append("\n---\n");
        }
        y.append("apiVersion: v1\nkind: Service\nmetadata:\n  name: big\n  namespace: default\nspec:\n")
                .append("  type: ClusterIP\n  clusterIP: 10.96.50.5\n  ports:\n    - name: http\n      protocol: TCP\n")
                .append("      port: 80\n      targetPort: 8080\n---\n")
                .append("apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: big-1\n")
                .append("  namespace: default\n  labels:\n    kubernetes.io/service-name: big\naddressType: IPv4\n")
                .append("ports:\n  - name: http\n    protocol: TCP\n    port: 8080\nendpoints:\n");
        for (int i = 0; i < backends; i++) {
            y.append("  - addresses: [\"10.244.2.").append(10 + i).append("\"]\n    conditions:\n      ready: true\n")
                    .append("    nodeName: win-node-2\n");
        }
        Files.writeString(manifests.resolve("cluster.yaml"), y.toString());
        return manifests;
    }

    @Test
    void aServiceWithMoreBackendsThanTheProfilesLimitIsNamedWithHowManyWouldBeCut() throws IOException {
        Path state = ws2019Host();

        Cli.Result text = Cli.run("check", "--manifests", cluster(70).toString(), "--hns-state", state.toString());

        assertThat(text.exitCode()).as(text.out() + text.err()).isEqualTo(1);
        assertThat(text.out()).contains("FAIL capacity/backends: default/big:http (10.96.50.5:80/TCP) has 70 backends;"
                + " one load balancer takes at most 64 (the emulated HNS 10.1's limit): 6 would be cut")
                .contains("docs/troubleshooting.md#backend-limit");
    }

    @Test
    void aServiceWithinTheLimitPassesAndNamesTheLimitsSource() throws IOException {
        Path state = ws2019Host();

        Cli.Result text = Cli.run("check", "--manifests", cluster(64).toString(), "--hns-state", state.toString());

        assertThat(text.out()).contains("PASS capacity/backends: the largest load balancer has 64 backends"
                + " (default/big:http); the limit is 64 (the emulated HNS 10.1's limit)");
    }

    @Test
    void theFlagsLimitIsTheOneCheckedAsTheAgentUsesIt() throws IOException {
        Path state = ws2019Host();

        Cli.Result text = Cli.run("check", "--manifests", cluster(40).toString(), "--hns-state", state.toString(),
                "--hns-max-backends-per-load-balancer=32");

        // the policy cut the Service to the flag's 32, as the agent would; the limit named is the flag's, not HNS's 64
        assertThat(text.out()).as(text.out() + text.err()).contains("PASS capacity/backends: the largest load"
                + " balancer has 32 backends (default/big:http); the limit is 32 (configured"
                + " (--hns-max-backends-per-load-balancer))");
    }

    @Test
    void aPortPoolAtEightyPercentWarnsAndAnExhaustedOneFails() throws IOException {
        Path state = ws2019Host();
        Path manifests = cluster(3);
        // One non-DSR load balancer reserves 64 ports: a pool of 80 is at 80%, a pool of 63 cannot hold it.
        assertThat(Cli.run("hns", "fault", "set", "--hns-state", state.toString(), "--port-pool", "80").exitCode())
                .isZero();
        Cli.Result warn = Cli.run("check", "--manifests", manifests.toString(), "--hns-state", state.toString());
        assertThat(warn.out()).contains("WARN capacity/port-pool: 1 non-DSR load balancers reserve about 64 of 80"
                + " dynamic ports (80%, the emulated host's pool)");

        assertThat(Cli.run("hns", "fault", "set", "--hns-state", state.toString(), "--port-pool", "63").exitCode())
                .isZero();
        Cli.Result fail = Cli.run("check", "--manifests", manifests.toString(), "--hns-state", state.toString());
        assertThat(fail.exitCode()).isEqualTo(1);
        assertThat(fail.out()).contains("FAIL capacity/port-pool: 1 non-DSR load balancers reserve about 64 of 63");
    }
}
