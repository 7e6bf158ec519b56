package io.winproxy.agent.check;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.agent.demo.ExampleCluster;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code winproxy check} on the host a {@code demo --once} converged (the example cluster on an emulated overlay
 * host), as it is and broken the ways a node breaks behind the proxy's back.
 */
class CheckCommandIT {
    @TempDir
    Path dir;
    private Path state;

    @BeforeEach
    void convergedDemoHost() {
        state = dir.resolve("hns.json");
        Cli.Result demo = Cli.run("demo", "--once", "--healthz-bind-address=", "--metrics-bind-address=",
                "--hns-state", state.toString());
        assertThat(demo.exitCode()).as(demo.err()).isZero();
    }

    private Cli.Result check(String... extra) {
        List<String> args = new ArrayList<>(List.of("check", "--example-cluster", "--hns-state", state.toString()));
        args.addAll(List.of(extra));
        return Cli.run(args.toArray(String[]::new));
    }

    private static List<JsonNode> results(JsonNode doc, String group) {
        List<JsonNode> out = new ArrayList<>();
        doc.get("groups").forEach(g -> {
            if (g.get("group").asText().equals(group)) {
                g.get("results").forEach(out::add);
            }
        });
        return out;
    }

    @Test
    void onAConvergedDemoHostEveryGroupPassesAndTheJsonHasTheFiveGroups() throws Exception {
        Cli.Result text = check();
        assertThat(text.exitCode()).as(text.out() + text.err()).isZero();
        assertThat(text.out().lines()).noneMatch(l -> l.startsWith("FAIL") || l.startsWith("WARN"));
        assertThat(text.out()).endsWith("check: 14 PASS, 0 WARN, 0 FAIL (capabilities, reachability not run)\n")
                .contains("PASS preflight/network: HNS network")
                .contains("PASS consistency/dns-vip: cluster DNS kube-system/kube-dns is programmed");

        Cli.Result json = check("-o", "json");
        assertThat(json.exitCode()).isZero();
        JsonNode doc = new ObjectMapper().readTree(json.out());
        assertThat(doc.get("status").asText()).isEqualTo("PASS");
        List<String> groups = new ArrayList<>();
        doc.get("groups").forEach(g -> groups.add(g.get("group").asText()));
        assertThat(groups).containsExactly("preflight", "capabilities", "consistency", "capacity", "reachability");
        doc.get("groups").forEach(g -> assertThat(g.get("status").asText()).as(g.toString())
                .isIn("PASS", "NOT_RUN"));

        // The demo's agent checked itself: preflight at start, consistency after its first sync.
        JsonNode startup = new ObjectMapper().readTree(dir.resolve("hns.json.winproxy/check.json").toFile());
        assertThat(startup.get("groups").get(0).get("status").asText()).as(startup.toString()).isEqualTo("PASS");
        assertThat(startup.get("groups").get(2).get("status").asText()).as(startup.toString()).isEqualTo("PASS");
        assertThat(startup.get("groups").get(1).get("notRun").asText())
                .isEqualTo("not run at start-up: winproxy check --probe-hns");
    }

    @Test
    void anOwnedLoadBalancerDeletedBehindTheProxysBackIsNamedWithItsServiceAndId() throws Exception {
        HnsEmulator host = HnsEmulator.openExisting(state);
        HostComputeLoadBalancer dns = host.listLoadBalancers().stream()
                .filter(lb -> lb.frontendVips().contains("10.96.0.10")).findFirst().orElseThrow();
        host.deleteLoadBalancer(dns.id());

        Cli.Result json = check("-o", "json");

        assertThat(json.exitCode()).as(json.err()).isEqualTo(1);
        JsonNode doc = new ObjectMapper().readTree(json.out());
        assertThat(results(doc, "consistency")).anySatisfy(r -> {
            assertThat(r.get("status").asText()).isEqualTo("FAIL");
            assertThat(r.get("check").asText()).isEqualTo("load-balancer-missing");
            assertThat(r.get("service").asText()).startsWith("kube-system/kube-dns:");
            assertThat(r.get("hnsId").asText()).isEqualToIgnoringCase(dns.id());
        });
        assertThat(results(doc, "consistency")).anySatisfy(r -> {
            assertThat(r.get("check").asText()).isEqualTo("dns-vip");
            assertThat(r.get("status").asText()).isEqualTo("FAIL");
            assertThat(r.get("hnsId").asText()).isEqualToIgnoringCase(dns.id());
        });
    }

    @Test
    void aForeignLoadBalancerOnAServicesVipIsNamedWithTheServiceAndItsId() throws Exception {
        HnsEmulator host = HnsEmulator.openExisting(state);
        HostComputeLoadBalancer owned = host.listLoadBalancers().stream()
                .filter(lb -> lb.frontendVips().contains("10.96.20.40")).findFirst().orElseThrow();
        host.deleteLoadBalancer(owned.id());
        // kube-proxy (or another tool) programs the same frontend with one backend: HNS gives it an ID of its own.
        HostComputeLoadBalancer foreign = host.createLoadBalancer(owned.withId(null)
                .withEndpoints(owned.hostComputeEndpoints().subList(0, 1)));

        Cli.Result json = check("-o", "json");

        assertThat(json.exitCode()).as(json.err()).isEqualTo(1);
        JsonNode doc = new ObjectMapper().readTree(json.out());
        assertThat(results(doc, "consistency")).anySatisfy(r -> {
            assertThat(r.get("status").asText()).isEqualTo("FAIL");
            assertThat(r.get("check").asText()).isEqualTo("foreign-load-balancer");
            assertThat(r.get("service").asText()).isEqualTo("shop/storefront:https");
            assertThat(r.get("hnsId").asText()).isEqualToIgnoringCase(foreign.id());
            assertThat(r.get("fix").asText()).contains("docs/troubleshooting.md#foreign-load-balancer");
        });
    }

    @Test
    void aServiceDeletedWhileTheProxyWasDownLeavesALeakedRemoteEndpointAndLoadBalancerNamedById() throws Exception {
        Path manifests = ExampleCluster.extractTo(dir.resolve("cluster"));
        Files.delete(manifests.resolve("sticky-session.yaml"));
        HnsEmulator host = HnsEmulator.openExisting(state);
        String network = host.listNetworks().get(0).id();
        HostComputeEndpoint remote = host.listEndpoints(network).stream()
                .filter(e -> e.isRemote() && e.ipAddress().orElse("").equals("10.244.2.30")).findFirst().orElseThrow();

        Cli.Result text = Cli.run("check", "--manifests", manifests.toString(), "--hns-state", state.toString());

        assertThat(text.exitCode()).as(text.out() + text.err()).isEqualTo(1);
        assertThat(text.out().lines()).anySatisfy(l -> assertThat(l)
                .startsWith("FAIL consistency/remote-endpoint-leaked: remote endpoint " + remote.id().toLowerCase()
                        + " (10.244.2.30) is winproxy's").contains("fix: the proxy deletes it on its next sync"));
        assertThat(text.out().lines()).anySatisfy(l -> assertThat(l)
                .startsWith("FAIL consistency/load-balancer-leaked: load balancer 77696e70-7278-")
                .contains("was default/session-api:api"));
    }

    @Test
    void theStateDirectoryLockedByTheRunningAgentPassesAndByAnotherProcessFails() throws Exception {
        Path stateDir = dir.resolve("hns.json.winproxy");
        try (var agent = io.winproxy.agent.state.InstanceLock.acquire(stateDir, "agent")) {
            Cli.Result text = check();
            assertThat(text.exitCode()).as(text.out()).isZero();
            assertThat(text.out()).contains("PASS preflight/state-dir-lock: state directory " + stateDir
                    + " is locked by the running agent (pid " + ProcessHandle.current().pid());
        }
        try (var other = io.winproxy.agent.state.InstanceLock.acquire(stateDir, "cleanup")) {
            Cli.Result text = check();
            assertThat(text.exitCode()).isEqualTo(1);
            assertThat(text.out()).contains("FAIL preflight/state-dir-lock: state directory " + stateDir
                    + " is locked by another process (pid " + ProcessHandle.current().pid())
                    .contains("docs/troubleshooting.md#state-directory-locked");
        }
    }

    @Test
    void probeTrafficOnAnEmulatedHostTracesASampleOfFrontendsAndSaysModelled() throws Exception {
        Cli.Result ok = check("--probe-traffic");
        assertThat(ok.exitCode()).as(ok.out()).isZero();
        assertThat(ok.out()).contains("-- reachability: PASS")
                .contains("PASS reachability/tcp: modelled: TCP to 10.96.0.10:53 (kube-system/kube-dns:dns-tcp"
                        + " ClusterIP): forwarded to ")
                .contains("PASS reachability/tcp: modelled: TCP to 10.0.0.11:30080");

        HnsEmulator host = HnsEmulator.openExisting(state);
        host.listLoadBalancers().stream().filter(lb -> lb.frontendVips().contains("10.96.20.40"))
                .forEach(lb -> host.deleteLoadBalancer(lb.id()));
        Cli.Result broken = check("--probe-traffic");
        assertThat(broken.exitCode()).isEqualTo(1);
        assertThat(broken.out()).contains("FAIL reachability/tcp: modelled: TCP to 10.96.20.40:443"
                + " (shop/storefront:https ClusterIP): no-policy")
                .contains("fix: winproxy trace --src 10.0.0.11 --dst 10.96.20.40:443; winproxy status shop/storefront");
    }

    @Test
    void anOwnedLoadBalancerChangedBehindTheProxysBackIsStaleWhileExtraReadBackFlagsAreNot() throws Exception {
        HnsEmulator host = HnsEmulator.openExisting(state);
        host.setVariants(java.util.Set.of(io.winproxy.hns.emulator.HnsVariant.EXTRA_FLAGS));
        Cli.Result flags = check();
        assertThat(flags.exitCode()).as("read-back that adds flags is no drift: " + flags.out()).isZero();

        HostComputeLoadBalancer web = host.listLoadBalancers().stream()
                .filter(lb -> lb.frontendVips().contains("10.96.10.20")).findFirst().orElseThrow();
        LoadBalancerPortMapping pm = web.portMapping().orElseThrow();
        host.modifyLoadBalancer(web.id(), new HostComputeLoadBalancer(web.id(), web.hostComputeEndpoints(),
                web.sourceVip(), web.frontendVips(), List.of(new LoadBalancerPortMapping(pm.protocol(), 9999,
                pm.externalPort(), pm.distributionType(), 0)), web.schemaVersion(), 0));

        Cli.Result stale = check();

        assertThat(stale.exitCode()).isEqualTo(1);
        assertThat(stale.out().lines().filter(l -> l.startsWith("FAIL"))).singleElement().satisfies(l -> assertThat(l)
                .startsWith("FAIL consistency/load-balancer-stale: load balancer " + web.id().toLowerCase()
                        + " (10.96.10.20:80/TCP) of default/web:http differs from what the Service wants"));
    }
}
