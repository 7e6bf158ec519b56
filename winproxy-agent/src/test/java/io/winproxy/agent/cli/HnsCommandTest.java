package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.hns.emulator.HnsEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hns list|delete} on an emulated host shared through a state file, as a user runs them. */
class HnsCommandTest {
    @TempDir
    Path dir;

    private Path state;
    private String lbId;
    private String endpointId;

    @BeforeEach
    void anEmulatedHostWithOneOwnedLoadBalancer() {
        SharedEmulatedHost host = SharedEmulatedHost.in(dir);
        state = host.state();
        endpointId = host.pod().id();
        lbId = host.agentSide().createLoadBalancer(host.dnsLoadBalancer()).id();
        OwnershipJournal journal = OwnershipJournal.open(dir);
        journal.recordLoadBalancer(lbId, "kube-system/kube-dns:dns", "10.96.0.10:53/UDP");
        journal.flush();
    }

    @Test
    void listAsJsonLabelsEachLoadBalancerWithItsOwningServicePort() throws Exception {
        CliRunner.Result r = CliRunner.run("hns", "list", "-o", "json", "--hns-state", state.toString(),
                "--state-dir", dir.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        JsonNode listing = new ObjectMapper().readTree(r.out());
        JsonNode lb = listing.get("loadBalancers").get(0);
        assertThat(lb.get("id").asText()).isEqualToIgnoringCase(lbId);
        assertThat(lb.get("service").asText()).isEqualTo("kube-system/kube-dns:dns");
        assertThat(lb.get("backends").get(0).asText()).isEqualTo("10.244.1.7");
        assertThat(listing.get("endpoints")).hasSize(1);
    }

    @Test
    void aGroupRunWithoutASubcommandIsAOneLineUsageErrorNamingItsSubcommandsInOrder() {
        CliRunner.Result hns = CliRunner.run("hns");
        CliRunner.Result fault = CliRunner.run("hns", "fault");
        CliRunner.Result variant = CliRunner.run("hns", "variant");

        for (CliRunner.Result r : new CliRunner.Result[] {hns, fault, variant}) {
            assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
            assertThat(r.errLines()).as(r.err()).isEqualTo(1);
        }
        assertThat(hns.err()).contains(
                "hns: name a subcommand: list, explain, delete, fault, variant, restart or rehydrate");
        assertThat(fault.err()).contains("hns fault: name a subcommand: set, clear or show");
        assertThat(variant.err()).contains("hns variant: name a subcommand: set, show or clear");
    }

    @Test
    void listOfAStateFileThatDoesNotExistIsAOneLineErrorAndCreatesNothing() {
        Path missing = dir.resolve("typo.json");

        CliRunner.Result r = CliRunner.run("hns", "list", "--hns-state", missing.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("--hns-state").contains("typo.json").contains("does not exist");
        assertThat(missing).doesNotExist();
    }

    @Test
    void deletingAnUnknownLoadBalancerNamesItAndTheHresultAndExits1() {
        CliRunner.Result r = CliRunner.run("hns", "delete", "load-balancer", "00000000-1111-2222-3333-444444444444",
                "--hns-state", state.toString(), "--state-dir", dir.toString());

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("no load-balancer 00000000-1111-2222-3333-444444444444")
                .contains("ERROR_NOT_FOUND");
    }

    @Test
    void anIdThatIsNotAGuidIsBadInputWithExit2() {
        CliRunner.Result r = CliRunner.run("hns", "delete", "endpoint", "not-a-guid", "--hns-state",
                state.toString(), "--state-dir", dir.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("not-a-guid").contains("GUID");
    }

    @Test
    void deletingAnOwnedLoadBalancerRemovesItFromTheHostAndTheJournal() throws Exception {
        CliRunner.Result r = CliRunner.run("hns", "delete", "load-balancer", lbId, "--hns-state", state.toString(),
                "--state-dir", dir.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("Deleted load-balancer " + lbId);
        assertThat(HnsEmulator.openExisting(state).listLoadBalancers()).isEmpty();
        assertThat(OwnershipJournal.open(dir).loadBalancer(lbId)).isEmpty();
        assertThat(HnsEmulator.openExisting(state).getEndpoint(endpointId)).isPresent();
        assertThat(Files.exists(state)).isTrue();
    }
}
