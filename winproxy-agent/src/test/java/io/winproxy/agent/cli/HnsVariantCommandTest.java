package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.emulator.HnsVariant;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import org.junit.jupiter.api.Test;

/**
 * {@code hns variant set|show|clear} on an emulated host, as an operator runs them beside a process (here: an
 * emulator instance) that uses the same state file, and {@code demo --hns-variant}'s validation.
 */
class HnsVariantCommandTest extends SharedHostCommandTest {
    @Test
    void setSwitchesExactlyTheNamedVariantsOnForTheProcessUsingTheHost() throws Exception {
        CliRunner.Result set = CliRunner.run("hns", "variant", "set", "--hns-state", host.stateFile(),
                "ids-rejected,extra-flags", "duplicate-frontend");

        assertThat(set.exitCode()).as(set.err()).isZero();
        assertThat(set.out()).contains("ids-rejected: ").contains("extra-flags: ").contains("duplicate-frontend: ");
        assertThat(host.agentSide().variants()).containsExactlyInAnyOrder(HnsVariant.IDS_REJECTED,
                HnsVariant.EXTRA_FLAGS, HnsVariant.DUPLICATE_FRONTEND);
        HostComputeLoadBalancer lb = host.dnsLoadBalancer();
        assertThatThrownBy(() -> host.agentSide().createLoadBalancer(lb.withId("77696e70-7278-4000-8000-00000000000a")))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.E_INVALIDARG));

        // A second set replaces the first.
        CliRunner.run("hns", "variant", "set", "--hns-state", host.stateFile(), "modify-noop");
        assertThat(host.agentSide().variants()).containsExactly(HnsVariant.MODIFY_NOOP);

        CliRunner.Result json = CliRunner.run("hns", "variant", "show", "--hns-state", host.stateFile(), "-o",
                "json");
        JsonNode doc = new ObjectMapper().readTree(json.out());
        assertThat(doc.get("variants")).hasSize(1);
        assertThat(doc.get("variants").get(0).get("name").asText()).isEqualTo("modify-noop");
    }

    @Test
    void clearSwitchesEveryVariantOffAndShowSaysSo() {
        host.agentSide().setVariants(java.util.Set.of(HnsVariant.IDS_IGNORED));
        CliRunner.Result shown = CliRunner.run("hns", "variant", "show", "--hns-state", host.stateFile());
        assertThat(shown.out()).startsWith("ids-ignored: creates ignore the caller's GUID");

        CliRunner.Result cleared = CliRunner.run("hns", "variant", "clear", "--hns-state", host.stateFile());

        assertThat(cleared.exitCode()).isZero();
        assertThat(cleared.out()).isEqualTo("no variants: the default pessimistic profile only\n");
        assertThat(host.agentSide().variants()).isEmpty();
    }

    @Test
    void anUnknownNameIsOneLineNamingItAndTheKnownOnesExit2AndChangesNothing() {
        host.agentSide().setVariants(java.util.Set.of(HnsVariant.EXTRA_FLAGS));
        CliRunner.Result bad = CliRunner.run("hns", "variant", "set", "--hns-state", host.stateFile(),
                "extra-flags,ids-random");

        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.errLines()).isEqualTo(1);
        assertThat(bad.err()).startsWith("winproxy: hns variant set: unknown HNS variant 'ids-random' (known: "
                + "ids-ignored, ids-rejected");
        assertThat(host.agentSide().variants()).containsExactly(HnsVariant.EXTRA_FLAGS);

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
