package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.trace.TraceResult;
import io.winproxy.policy.trace.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole agent between a CRUD API server and the HNS emulator; HNS state is checked by tracing packets. */
class ProxyAgentIT {
    private static final String CLIENT = "10.244.1.9";

    @TempDir
    Path stateDir;

    private AgentHarness harness;

    @BeforeEach
    void start() {
        harness = new AgentHarness(stateDir);
    }

    @AfterEach
    void stop() {
        harness.close();
    }

    private Set<String> backends(String vip, int port) {
        TraceResult result = harness.trace(CLIENT, vip, port, Protocol.TCP);
        return result.verdict() == Verdict.FORWARDED ? result.backends() : Set.of();
    }

    private void createWeb() {
        harness.api().resource(AgentHarness.service("default", "web", "10.96.0.80", 80, 8080)).create();
        harness.api().resource(AgentHarness.slice("default", "web-1", "web", 8080,
                "10.244.1.5@win-a", "10.244.2.6@win-b")).create();
    }

    @Test
    void servicesAndEndpointSlicesAreProgrammedAndFollowUpdatesAndDeletes() throws Exception {
        createWeb();
        harness.startAgent();
        Eventually.await(AgentHarness.TIMEOUT, "web programmed with both backends",
                () -> backends("10.96.0.80", 80).equals(Set.of("10.244.1.5:8080", "10.244.2.6:8080")));

        harness.api().resource(AgentHarness.slice("default", "web-1", "web", 8080, "10.244.1.5@win-a")).update();
        Eventually.await(AgentHarness.TIMEOUT, "the remote backend removed",
                () -> backends("10.96.0.80", 80).equals(Set.of("10.244.1.5:8080")));
        Eventually.await(AgentHarness.TIMEOUT, "the unused remote endpoint deleted", () -> harness.hns
                .listEndpoints(harness.hns.getNetworkByName(AgentHarness.NETWORK).orElseThrow().id()).stream()
                .filter(HostComputeEndpoint::isRemote).map(e -> e.ipAddress().orElse(""))
                .toList().equals(List.of("10.96.0.80")));
        // Overlay: the ClusterIP's remote endpoint carries the host MAC, as upstream winkernel programs it.
        HostComputeEndpoint clusterIp = harness.hns.listEndpoints(harness.hns.getNetworkByName(AgentHarness.NETWORK)
                .orElseThrow().id()).stream().filter(HostComputeEndpoint::isRemote).findFirst().orElseThrow();
        assertThat(clusterIp.macAddress()).isEqualToIgnoringCase(HostMacLookup.emulated().macOf("192.168.1.11"));

        harness.api().resource(AgentHarness.service("default", "api", "10.96.0.90", 443, 8443)).create();
        harness.api().resource(AgentHarness.slice("default", "api-1", "api", 8443, "10.244.2.7@win-b")).create();
        Eventually.await(AgentHarness.TIMEOUT, "a second service programmed",
                () -> backends("10.96.0.90", 443).equals(Set.of("10.244.2.7:8443")));

        harness.api().services().inNamespace("default").withName("web").delete();
        Eventually.await(AgentHarness.TIMEOUT, "the deleted service's load balancer removed",
                () -> harness.trace(CLIENT, "10.96.0.80", 80, Protocol.TCP).verdict() == Verdict.NO_POLICY);
        assertThat(backends("10.96.0.90", 443)).containsExactly("10.244.2.7:8443");
    }

    @Test
    void aRestartOnAnUnchangedClusterMakesZeroCreatesAndZeroDeletes() throws Exception {
        createWeb();
        harness.startAgent();
        Eventually.await(AgentHarness.TIMEOUT, "first sync", harness::syncedSuccessfully);
        harness.stopAgent();
        int loadBalancers = harness.hns.listLoadBalancerIds().size();

        harness.hns.journal().reset();
        harness.startAgent();
        Eventually.await(AgentHarness.TIMEOUT, "sync after restart", harness::syncedSuccessfully);
        assertThat(harness.hns.journal().writes()).isZero();

        harness.stopAgent();
        Files.delete(stateDir.resolve(OwnershipJournal.FILE_NAME));
        Files.deleteIfExists(stateDir.resolve(OwnershipJournal.LOG_NAME));
        harness.hns.journal().reset();
        harness.startAgent();
        Eventually.await(AgentHarness.TIMEOUT, "sync after a restart that lost the journal",
                harness::syncedSuccessfully);
        assertThat(harness.hns.journal().writes()).as("adoption without a journal").isZero();
        assertThat(harness.hns.listLoadBalancerIds()).hasSize(loadBalancers);
        Eventually.await(AgentHarness.TIMEOUT, "the journal rebuilt by adoption",
                () -> OwnershipJournal.open(stateDir).loadBalancers().size() == loadBalancers);
    }

    @Test
    void aLoadBalancerDeletedOrChangedBehindTheAgentsBackIsRestoredWithinASyncPeriod() throws Exception {
        createWeb();
        harness.startAgent();
        Eventually.await(AgentHarness.TIMEOUT, "web programmed",
                () -> backends("10.96.0.80", 80).size() == 2);
        HostComputeLoadBalancer lb = harness.hns.listLoadBalancers().get(0);

        harness.hns.deleteLoadBalancer(lb.id());
        assertThat(backends("10.96.0.80", 80)).isEmpty();
        Eventually.await(AgentHarness.TIMEOUT, "deleted load balancer restored",
                () -> backends("10.96.0.80", 80).size() == 2);

        HostComputeLoadBalancer restored = harness.hns.listLoadBalancers().get(0);
        harness.hns.modifyLoadBalancer(restored.id(),
                restored.withId(null).withEndpoints(restored.hostComputeEndpoints().subList(0, 1)));
        assertThat(backends("10.96.0.80", 80)).hasSize(1);
        Eventually.await(AgentHarness.TIMEOUT, "changed load balancer restored",
                () -> backends("10.96.0.80", 80).size() == 2);
    }

    @Test
    void theAgentKeepsHnsStateWhileTheApiServerIsAwayAndCatchesUpWhenItReturns() throws Exception {
        createWeb();
        harness.startAgent();
        Eventually.await(AgentHarness.TIMEOUT, "web programmed", () -> backends("10.96.0.80", 80).size() == 2);
        Eventually.await(AgentHarness.TIMEOUT, "a sync with nothing left to write", harness::converged);

        harness.stopServer();
        harness.hns.journal().reset();
        Thread.sleep(3000);
        assertThat(harness.hns.journal().writes()).as("no HNS write while the API server is away").isZero();
        assertThat(backends("10.96.0.80", 80)).hasSize(2);

        harness.restartServer();
        harness.api().resource(AgentHarness.service("default", "api", "10.96.0.90", 443, 8443)).create();
        harness.api().resource(AgentHarness.slice("default", "api-1", "api", 8443, "10.244.1.7@win-a")).create();
        Eventually.await(AgentHarness.TIMEOUT, "a service created after the API server returned is programmed",
                () -> backends("10.96.0.90", 443).equals(Set.of("10.244.1.7:8443")));
        assertThat(backends("10.96.0.80", 80)).hasSize(2);
    }

    @Test
    void stoppingTheAgentLeavesHnsStateInPlace() throws Exception {
        createWeb();
        harness.startAgent();
        Eventually.await(AgentHarness.TIMEOUT, "web programmed", () -> backends("10.96.0.80", 80).size() == 2);
        Eventually.await(AgentHarness.TIMEOUT, "a sync with nothing left to write", harness::converged);
        harness.hns.journal().reset();
        harness.stopAgent();
        assertThat(harness.hns.journal().writes()).isZero();
        assertThat(backends("10.96.0.80", 80)).hasSize(2);
    }
}
