package io.winproxy.agent.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.SchemaVersion;
import io.winproxy.agent.pipeline.ClusterObjects;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.policy.model.NodeInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The preflight group on hosts that are not fit to run the proxy. */
class PreflightTest {
    @TempDir
    Path dir;

    @Test
    void aHostWithOnlyTheExternalNetworkFailsPreflightWithTheFixAndRunsNoConsistency() {
        Path state = dir.resolve("hns.json");
        HnsEmulator hns = HnsEmulator.builder().stateFile(state).build();
        new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "External", "win-node-1")
                .syncNetwork(TwoNodes.NODES);

        Cli.Result text = Cli.run("check", "--example-cluster", "--hns-state", state.toString());

        assertThat(text.exitCode()).as(text.out() + text.err()).isEqualTo(1);
        assertThat(text.out().lines().filter(l -> l.startsWith("FAIL"))).singleElement().satisfies(l -> assertThat(l)
                .startsWith("FAIL preflight/network: HNS network External (L2Bridge, ")
                .contains("is the vSwitch-only network, not the CNI's pod network")
                .contains("fix: set --network-name to the CNI's network")
                .contains("docs/troubleshooting.md#external-network"));
        assertThat(text.out()).contains("-- consistency: not run (preflight found no usable HNS network)");

        Cli.Result named = Cli.run("check", "--example-cluster", "--hns-state", state.toString(),
                "--network-name", "cbr0");
        assertThat(named.exitCode()).isEqualTo(1);
        assertThat(named.out()).contains("FAIL preflight/network: HNS network cbr0 does not exist (networks on this"
                + " host: [External])");
    }

    @Test
    void anOverlayHostWithoutTheHostMacFailsNamingTheNodeIp() throws Exception {
        HnsEmulator hns = HnsEmulator.inMemory();
        EmulatedHost host = overlayWinNode1(hns);
        host.ensureHostEndpoint("10.244.1.2");
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--network-name=vxlan0",
                "--source-vip=10.244.1.2", "--hostname-override=win-node-1"), Map.of());
        ClusterRead cluster = nodeWinNode1();
        Path stateDir = dir.resolve("state");

        Preflight.Outcome none = Preflight.run(new Preflight.Inputs(config, hns, true, "win-node-1", cluster,
                HostMacLookup.NONE, new StateDirectoryCheck(stateDir, false)));
        Preflight.Outcome found = Preflight.run(new Preflight.Inputs(config, hns, true, "win-node-1", cluster,
                HostMacLookup.emulated(), new StateDirectoryCheck(stateDir, false)));

        assertThat(none.results()).filteredOn(r -> r.check().equals("host-mac")).singleElement().satisfies(r -> {
            assertThat(r.status()).isEqualTo(CheckStatus.FAIL);
            assertThat(r.message()).isEqualTo("no network interface of this host holds the node IP 10.0.0.11");
            assertThat(r.fix()).contains("--bind-address").contains("docs/troubleshooting.md#host-mac");
        });
        assertThat(found.results()).filteredOn(r -> r.check().equals("host-mac")).singleElement()
                .satisfies(r -> assertThat(r.status()).isEqualTo(CheckStatus.PASS));
        assertThat(none.results()).filteredOn(r -> r.check().equals("source-vip")).singleElement()
                .satisfies(r -> assertThat(r.status()).isEqualTo(CheckStatus.PASS));
        assertThat(none.results()).filteredOn(r -> r.check().equals("state-dir")).singleElement()
                .satisfies(r -> assertThat(r.status()).isEqualTo(CheckStatus.WARN));
    }

    @Test
    void aDualStackBindAddressNamesItsFirstIpAsTheNodeIpOfTheHostMacCheck() throws Exception {
        HnsEmulator hns = HnsEmulator.inMemory();
        EmulatedHost host = overlayWinNode1(hns);
        host.ensureHostEndpoint("10.244.1.2");
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--network-name=vxlan0",
                "--source-vip=10.244.1.2", "--hostname-override=win-node-1", "--bind-address=10.0.0.77,fd00::77"),
                Map.of());

        Preflight.Outcome outcome = Preflight.run(new Preflight.Inputs(config, hns, true, "win-node-1",
                nodeWinNode1(), HostMacLookup.NONE, new StateDirectoryCheck(dir.resolve("state"), false)));

        assertThat(outcome.results()).filteredOn(r -> r.check().equals("host-mac")).singleElement().satisfies(r ->
                assertThat(r.message()).isEqualTo("no network interface of this host holds the node IP 10.0.0.77"));
    }

    @Test
    void withoutASourceVipOnOverlayTheHnsAssignedOneIsFoundAndItsAbsenceIsOnlyAWarning() throws Exception {
        HnsEmulator hns = HnsEmulator.inMemory();
        overlayWinNode1(hns);
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--network-name=vxlan0",
                "--hostname-override=win-node-1"), Map.of());
        ClusterRead cluster = nodeWinNode1();
        Preflight.Inputs inputs = new Preflight.Inputs(config, hns, true, "win-node-1", cluster,
                HostMacLookup.emulated(), new StateDirectoryCheck(dir.resolve("state"), false));

        assertThat(Preflight.run(inputs).results()).filteredOn(r -> r.check().equals("source-vip")).singleElement()
                .satisfies(r -> {
                    assertThat(r.status()).isEqualTo(CheckStatus.WARN);
                    assertThat(r.cause()).contains("asks HNS to assign one");
                });

        // what the agent's first sync does: an endpoint without an address, named as winproxy names it
        String network = hns.getNetworkByName("vxlan0").orElseThrow().id();
        hns.createEndpoint(network, new HostComputeEndpoint(null, HnsDataplane.SOURCE_VIP_ENDPOINT_NAME, network,
                List.of(), List.of(), null, 0, SchemaVersion.V2));
        assertThat(Preflight.run(inputs).results()).filteredOn(r -> r.check().equals("source-vip")).singleElement()
                .satisfies(r -> {
                    assertThat(r.status()).isEqualTo(CheckStatus.PASS);
                    assertThat(r.message()).contains("assigned by HNS");
                });
    }

    @Test
    void theAgentsPreflightReadsNoEndpointDocument() throws Exception {
        HnsEmulator hns = HnsEmulator.inMemory();
        EmulatedHost host = overlayWinNode1(hns);
        host.ensureHostEndpoint("10.244.1.2");
        host.syncLocalEndpoints(java.util.Set.of("10.244.1.5", "10.244.1.6", "10.244.1.7"));
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--network-name=vxlan0",
                "--hostname-override=win-node-1"), Map.of());
        ClusterRead cluster = nodeWinNode1();
        hns.journal().reset();

        Preflight.Outcome outcome = Preflight.run(new Preflight.Inputs(config, hns, true, "win-node-1", cluster,
                HostMacLookup.emulated(), new StateDirectoryCheck(dir.resolve("state"), false), false));

        assertThat(hns.journal().count(io.winproxy.hns.emulator.HnsCall.OPEN,
                io.winproxy.hns.emulator.HnsObjectKind.ENDPOINT)).isZero();
        assertThat(outcome.results()).filteredOn(r -> r.check().equals("source-vip")).singleElement()
                .satisfies(r -> assertThat(r.status()).isEqualTo(CheckStatus.PASS));
        assertThat(outcome.results()).filteredOn(r -> r.check().equals("host-mac")).singleElement()
                .satisfies(r -> assertThat(r.status()).isEqualTo(CheckStatus.PASS));
    }

    @Test
    void checkWithoutAHostOnLinuxIsAUsageErrorNamingTheFlag() {
        Cli.Result r = Cli.run("check", "--example-cluster");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).startsWith("winproxy: --hns-state: check examines an existing host");
        assertThat(r.err().lines().count()).isEqualTo(1);
    }

    /** win-node-1's overlay network vxlan0 on {@code hns}, with the routes to both nodes of {@link TwoNodes}. */
    private static EmulatedHost overlayWinNode1(HnsEmulator hns) {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, "vxlan0", "win-node-1");
        host.syncNetwork(TwoNodes.NODES);
        return host;
    }

    /** A cluster read from files holding only this node, win-node-1 (pods 10.244.1.0/24, InternalIP 10.0.0.11). */
    private static ClusterRead nodeWinNode1() {
        return new ClusterRead("--manifests test", false, new ClusterObjects.Mapped(
                List.of(new NodeInfo("win-node-1", Map.of(), List.of("10.244.1.0/24"), List.of("10.0.0.11"), null,
                        false, List.of())), List.of(), List.of()), "");
    }
}
