package io.winproxy.agent.check;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.agent.dataplane.HnsCapabilityFile;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsVariant;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code check --probe-hns} on an emulated host under each variant: it reports what the variant does, deletes every
 * scratch object (the state file's objects are byte for byte what they were), touches no other object, and keeps
 * what it learnt in hns-capabilities.json, where capacity finds the limit.
 */
class HnsProbeTest {
    @TempDir
    Path dir;

    /** An overlay host with a pod endpoint and one load balancer of someone else's on it. */
    private Path host(HnsVersion version, Set<HnsVariant> variants) throws Exception {
        Path state = dir.resolve("hns.json");
        HnsEmulator hns = HnsEmulator.builder().stateFile(state).version(version).build();
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, "vxlan0", "win-node-1");
        host.syncNetwork(TwoNodes.NODES);
        HostComputeEndpoint pod = host.ensureLocalEndpoint("10.244.1.5");
        hns.createLoadBalancer(HostComputeLoadBalancer.of(List.of(pod.id()), "", "10.96.0.10",
                new LoadBalancerPortMapping(LoadBalancerPortMapping.PROTOCOL_UDP, 53, 53, 0, 0), 0));
        hns.setVariants(variants);
        Files.createDirectories(dir.resolve("hns.json.winproxy"));
        return state;
    }

    /** Every object the state file holds, as HCN JSON documents in the order HNS lists them. */
    private static String objects(Path state) throws Exception {
        HnsEmulator hns = HnsEmulator.openExisting(state);
        ObjectMapper json = new ObjectMapper();
        StringBuilder b = new StringBuilder(json.writeValueAsString(hns.listNetworks()));
        hns.listNetworks().forEach(n -> b.append(writeQuietly(json, hns.listEndpoints(n.id()))));
        return b.append(json.writeValueAsString(hns.listLoadBalancers())).toString();
    }

    private static String writeQuietly(ObjectMapper json, Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private Cli.Result probe(Path state) {
        return Cli.run("check", "--example-cluster", "--hns-state", state.toString(), "--network-name", "vxlan0",
                "--source-vip", "10.244.1.2", "--probe-hns");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "none|PASS capabilities/endpoint-id: a remote endpoint created with the GUID 77696e70-7278-|: honoured",
        "ids-ignored|WARN capabilities/load-balancer-id: a load balancer created with the GUID 77696e70-7278-"
                + "|: replaced by HNS's own ID (",
        "ids-rejected|WARN capabilities/endpoint-id: a remote endpoint created with the GUID 77696e70-7278-"
                + "|: refused: 0x80070057 E_INVALIDARG",
        "modify-noop|WARN capabilities/modify: a modify of a load balancer's backends answers S_OK and keeps the old"
                + " backends (kubernetes#131466)|cause: this HNS build does not honour an in-place modify",
        "duplicate-frontend|PASS capabilities/duplicate-frontend: a second load balancer on a taken frontend fails"
                + " with 0x800700B7 ERROR_ALREADY_EXISTS|",
        "extra-flags|PASS capabilities/read-back-flags: read-back of a load balancer adds load balancer flags 0x100"
                + " and port-mapping flags 0x4000 that were never written|"})
    void eachVariantIsReportedAndTheHostIsLeftAsItWas(String variant, String line, String rest) throws Exception {
        Path state = host(new HnsVersion(15, 5), variant.equals("none") ? Set.of() : Set.of(HnsVariant.parse(variant)));
        String before = objects(state);

        Cli.Result r = probe(state);

        assertThat(r.out().lines()).as(r.out() + r.err()).anySatisfy(l -> assertThat(l).startsWith(line)
                .contains(rest == null ? "" : rest));
        assertThat(r.out()).contains("PASS capabilities/cleanup: every scratch object was deleted");
        assertThat(objects(state)).as("the host's objects after the probe").isEqualTo(before);
    }

    @Test
    void onAWindowsServer2019HostTheLimitIs64ModifyIsNotImplementedAndCapacityUsesWhatWasLearnt() throws Exception {
        Path state = host(new HnsVersion(10, 1), Set.of());
        String before = objects(state);

        Cli.Result r = probe(state);

        assertThat(r.out()).as(r.out() + r.err())
                .contains("PASS capabilities/backend-limit: one load balancer accepts at most 64 backends (65 fail"
                        + " with E_INVALIDARG 'invalid number of destinations')")
                .contains("capabilities/modify: a modify of a load balancer's backends is not implemented (E_NOTIMPL,"
                        + " HNS below 15.4)")
                .contains("capabilities/unknown-id: an open of an unknown load balancer ID reads as not found");
        assertThat(objects(state)).isEqualTo(before);
        HnsCapabilityFile learnt = HnsCapabilityFile.read(dir.resolve("hns.json.winproxy")).orElseThrow();
        assertThat(learnt.maxBackendsPerLoadBalancer()).isEqualTo(64);
        assertThat(learnt.source()).isEqualTo("winproxy check --probe-hns");
        assertThat(learnt.probes()).containsKeys("endpointCallerId", "loadBalancerCallerId", "openUnknownId",
                "deleteUnknownId", "duplicateFrontend", "modify", "dsr", "readBackFlags", "maxBackendsSearch");

        Cli.Result again = Cli.run("check", "--example-cluster", "--hns-state", state.toString(), "--network-name",
                "vxlan0", "--source-vip", "10.244.1.2");
        assertThat(again.out()).contains("the limit is 64 (learnt by winproxy check --probe-hns at ");

        Cli.Result list = Cli.run("hns", "list", "--hns-state", state.toString());
        assertThat(list.out()).contains("Learnt (hns-capabilities.json):\n  max backends per load balancer: 64"
                + " (winproxy check --probe-hns, ").contains("  modify: is not implemented (E_NOTIMPL");
        Cli.Result json = Cli.run("hns", "list", "--hns-state", state.toString(), "-o", "json");
        assertThat(new ObjectMapper().readTree(json.out()).get("learnt").get("maxBackendsPerLoadBalancer").asInt())
                .isEqualTo(64);
    }

    @Test
    void scratchObjectsADeadProbeLeftAreFoundByFrontendAndMacAndDeletedAloneByTheNextRun() throws Exception {
        Path state = host(new HnsVersion(15, 5), Set.of(HnsVariant.IDS_IGNORED));
        String before = objects(state);
        HnsEmulator hns = HnsEmulator.openExisting(state);
        String network = hns.listNetworks().get(0).id();
        // What a probe killed mid-way leaves: a scratch endpoint and a load balancer on it, under HNS's own IDs.
        HostComputeEndpoint ep = hns.createEndpoint(network, ScratchObjects.endpoint(null, network,
                ScratchObjects.ENDPOINT_IP_1, HnsProbe.PROVIDER_ADDRESS));
        hns.createLoadBalancer(ScratchObjects.loadBalancer(null, List.of(ep.id()), ScratchObjects.FIRST_PORT, 0));

        Cli.Result r = probe(state);

        assertThat(r.out()).contains("PASS capabilities/leftovers: deleted 2 scratch objects an earlier probe left"
                + " behind");
        assertThat(objects(state)).isEqualTo(before);
    }
}
