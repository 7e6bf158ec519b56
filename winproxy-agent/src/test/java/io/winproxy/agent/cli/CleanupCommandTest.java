package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.hns.model.SchemaVersion;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cleanup}, {@code --cleanup} and {@code hns ...} on an emulated host shared through its state file. */
class CleanupCommandTest {
    @TempDir
    Path dir;

    private Path stateFile;
    private String ownedLb;
    private String unownedLb;
    private String ownedRemote;
    private String localEndpoint;

    @BeforeEach
    void seedHost() {
        stateFile = dir.resolve("hns.json");
        HnsEmulator hns = HnsEmulator.builder().stateFile(stateFile).build();
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, "overlay", "win-a");
        String networkId = host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11"),
                new EmulatedHost.Node("win-b", "10.244.2.0/24", "192.168.1.12"))).id();
        localEndpoint = host.syncLocalEndpoints(Set.of("10.244.1.5")).get(0).id();
        ownedRemote = hns.createEndpoint(networkId, HostComputeEndpoint.remote(networkId, "10.244.2.6",
                "02-11-0a-f4-02-06", "192.168.1.12")).id();
        ownedLb = hns.createLoadBalancer(lb("10.96.0.80", List.of(localEndpoint, ownedRemote))).id();
        unownedLb = hns.createLoadBalancer(lb("10.96.0.99", List.of(localEndpoint))).id();
        OwnershipJournal journal = OwnershipJournal.open(dir.resolve("state"));
        journal.recordLoadBalancer(ownedLb, "default/web:http", "10.96.0.80:80/TCP");
        journal.recordRemoteEndpoint(ownedRemote, "10.244.2.6");
        journal.flush();
    }

    private static HostComputeLoadBalancer lb(String vip, List<String> endpoints) {
        return new HostComputeLoadBalancer(null, endpoints, "", List.of(vip),
                List.of(new LoadBalancerPortMapping(6, 8080, 80, 0, 0)), SchemaVersion.V2, 0);
    }

    private HnsEmulator reopen() {
        return HnsEmulator.builder().stateFile(stateFile).build();
    }

    @Test
    void cleanupTakesTheProxysOwnCommandLineAsTheCleanupFlagDoes() {
        CliRunner.Result r = CliRunner.run("cleanup", "--network-name", "vxlan0", "--hostname-override=win-a",
                "--source-vip=10.244.1.2", "--feature-gates=WinOverlay=true", "--v=2", "--hns-state",
                stateFile.toString(), "--state-dir", dir.resolve("state").toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("Removed 1 load balancer(s) and 1 remote endpoint(s).");
    }

    @Test
    void cleanupWithAnInvalidProxyFlagExitsTwoNamingIt() {
        CliRunner.Result r = CliRunner.run("cleanup", "--iptables-sync-period=forever", "--hns-state",
                stateFile.toString(), "--state-dir", dir.resolve("state").toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("sync-period");
        assertThat(reopen().listLoadBalancerIds()).as("nothing removed").hasSize(2);
    }

    @Test
    void cleanupRemovesOnlyWhatWinproxyOwnsAndReportsTheRest() {
        CliRunner.Result r = CliRunner.run("cleanup", "--hns-state", stateFile.toString(), "--state-dir",
                dir.resolve("state").toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("Removed 1 load balancer(s) and 1 remote endpoint(s)").contains(unownedLb);
        HnsEmulator hns = reopen();
        assertThat(hns.listLoadBalancerIds()).containsExactly(unownedLb);
        assertThat(hns.getEndpoint(ownedRemote)).isEmpty();
        assertThat(hns.getEndpoint(localEndpoint)).isPresent();
        assertThat(OwnershipJournal.open(dir.resolve("state")).ownership().loadBalancerIds()).isEmpty();
    }

    @Test
    void cleanupAllRemovesEveryLoadBalancerButNoLocalEndpoint() {
        CliRunner.Result r = CliRunner.run("cleanup", "--all", "--hns-state", stateFile.toString(), "--state-dir",
                dir.resolve("state").toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        HnsEmulator hns = reopen();
        assertThat(hns.listLoadBalancerIds()).isEmpty();
        assertThat(hns.getEndpoint(localEndpoint)).isPresent();
    }

    @Test
    void theKubeProxyCleanupFlagIsTheCleanupCommand() {
        CliRunner.Result r = CliRunner.run("--cleanup", "--hostname-override=win-a", "--hns-state",
                stateFile.toString(), "--state-dir", dir.resolve("state").toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(reopen().listLoadBalancerIds()).containsExactly(unownedLb);
    }

    @Test
    void hnsListLabelsOwnedLoadBalancersWithTheirServicePort() {
        CliRunner.Result r = CliRunner.run("hns", "list", "--hns-state", stateFile.toString(), "--state-dir",
                dir.resolve("state").toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("default/web:http").contains(unownedLb);
    }

    @Test
    void hnsDeleteRemovesOneObjectAndAMissingOneExits1() {
        CliRunner.Result r = CliRunner.run("hns", "delete", "load-balancer", unownedLb, "--hns-state",
                stateFile.toString(), "--state-dir", dir.resolve("state").toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(reopen().listLoadBalancerIds()).containsExactly(ownedLb);

        CliRunner.Result again = CliRunner.run("hns", "delete", "load-balancer", unownedLb, "--hns-state",
                stateFile.toString(), "--state-dir", dir.resolve("state").toString());
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).contains(unownedLb);
    }

    @Test
    void planAgainstTheHostReportsTheUnownedLoadBalancer() {
        CliRunner.Result r = CliRunner.run("plan", "--manifests", SyncCluster.dir().toString(),
                "--hostname-override=win-a", "--hns-state", stateFile.toString(), "--state-dir",
                dir.resolve("state").toString(), "-o", "json");
        assertThat(r.exitCode()).as(r.err()).isZero();
        // HNS IDs are compared without letter case; plan prints them lower-case.
        assertThat(r.out()).containsIgnoringCase(unownedLb);
        assertThat(reopen().listLoadBalancerIds()).as("plan changes nothing").hasSize(2);
    }

    @Test
    void cleanupOfAMissingStateFileIsAUsageErrorAndCreatesNoHost() {
        Path missing = dir.resolve("typo.json");
        CliRunner.Result r = CliRunner.run("cleanup", "--hns-state", missing.toString(), "--state-dir",
                dir.resolve("state").toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().strip()).contains("--hns-state").doesNotContain("\n");
        assertThat(missing).doesNotExist();
    }
}
