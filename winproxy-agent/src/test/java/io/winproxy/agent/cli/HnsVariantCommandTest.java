package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsVariant;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hns variant set|show|clear} on an emulated host, as an operator runs them beside a process (here: an
 * emulator instance) that uses the same state file, and {@code demo --hns-variant}'s validation.
 */
class HnsVariantCommandTest {
    @TempDir
    Path dir;

    private Path state;
    private HnsEmulator agentSide;
    private HostComputeEndpoint pod;

    @BeforeEach
    void anEmulatedHostUsedByAnotherProcess() {
        state = dir.resolve("hns.json");
        agentSide = HnsEmulator.builder().stateFile(state).build();
        EmulatedHost host = new EmulatedHost(agentSide, EmulatedHost.NetworkType.L2BRIDGE, null, "node-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("node-a", "10.244.1.0/24", "192.168.10.21")));
        pod = host.ensureLocalEndpoint("10.244.1.7");
    }

    @Test
    void setSwitchesExactlyTheNamedVariantsOnForTheProcessUsingTheHost() throws Exception {
        CliRunner.Result set = CliRunner.run("hns", "variant", "set", "--hns-state", state.toString(),
                "ids-rejected,extra-flags", "duplicate-frontend");

        assertThat(set.exitCode()).as(set.err()).isZero();
        assertThat(set.out()).contains("ids-rejected: ").contains("extra-flags: ").contains("duplicate-frontend: ");
        assertThat(agentSide.variants()).containsExactlyInAnyOrder(HnsVariant.IDS_REJECTED, HnsVariant.EXTRA_FLAGS,
                HnsVariant.DUPLICATE_FRONTEND);
        HostComputeLoadBalancer lb = HostComputeLoadBalancer.of(List.of(pod.id()), "", "10.96.0.10",
                new LoadBalancerPortMapping(LoadBalancerPortMapping.PROTOCOL_UDP, 53, 53, 0, 0), 0);
        assertThatThrownBy(() -> agentSide.createLoadBalancer(lb.withId("77696e70-7278-4000-8000-00000000000a")))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.E_INVALIDARG));

        // A second set replaces the first.
        CliRunner.run("hns", "variant", "set", "--hns-state", state.toString(), "modify-noop");
        assertThat(agentSide.variants()).containsExactly(HnsVariant.MODIFY_NOOP);

        CliRunner.Result json = CliRunner.run("hns", "variant", "show", "--hns-state", state.toString(), "-o",
                "json");
        JsonNode doc = new ObjectMapper().readTree(json.out());
        assertThat(doc.get("variants")).hasSize(1);
        assertThat(doc.get("variants").get(0).get("name").asText()).isEqualTo("modify-noop");
    }

    @Test
    void clearSwitchesEveryVariantOffAndShowSaysSo() {
        agentSide.setVariants(java.util.Set.of(HnsVariant.IDS_IGNORED));
        CliRunner.Result shown = CliRunner.run("hns", "variant", "show", "--hns-state", state.toString());
        assertThat(shown.out()).startsWith("ids-ignored: creates ignore the caller's GUID");

        CliRunner.Result cleared = CliRunner.run("hns", "variant", "clear", "--hns-state", state.toString());

        assertThat(cleared.exitCode()).isZero();
        assertThat(cleared.out()).isEqualTo("no variants: the default pessimistic profile only\n");
        assertThat(agentSide.variants()).isEmpty();
    }

    @Test
    void anUnknownNameIsOneLineNamingItAndTheKnownOnesExit2AndChangesNothing() {
        agentSide.setVariants(java.util.Set.of(HnsVariant.EXTRA_FLAGS));
        CliRunner.Result bad = CliRunner.run("hns", "variant", "set", "--hns-state", state.toString(),
                "extra-flags,ids-random");

        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.errLines()).isEqualTo(1);
        assertThat(bad.err()).startsWith("winproxy: hns variant set: unknown HNS variant 'ids-random' (known: "
                + "ids-ignored, ids-rejected");
        assertThat(agentSide.variants()).containsExactly(HnsVariant.EXTRA_FLAGS);

        CliRunner.Result noFile = CliRunner.run("hns", "variant", "show", "--hns-state",
                dir.resolve("missing.json").toString());
        assertThat(noFile.exitCode()).isEqualTo(2);
        assertThat(noFile.err()).startsWith("winproxy: --hns-state: ");
    }

    @Test
    void theDemoRefusesAnUnknownVariantBeforeStartingAnything() {
        CliRunner.Result bad = CliRunner.run("demo", "--once", "--hns-variant", "ids-ignored,nope");

        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.errLines()).isEqualTo(1);
        assertThat(bad.err()).startsWith("winproxy: --hns-variant: unknown HNS variant 'nope'");
    }
}
