package io.winproxy.policy.trace;

import static io.winproxy.policy.testing.Slice.slice;
import static io.winproxy.policy.testing.Svc.svc;
import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.testing.PolicyHarness;
import io.winproxy.policy.testing.TestDsrFeature;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Packet-flow tables per service shape, on overlay and l2bridge: after a real policy sync against the fake host,
 * {@code (src, protocol, dst, port) -> verdict, backends, dsr, source after SNAT}.
 */
class PacketFlowTest {
    static final String LOCAL_POD = "192.168.4.4";
    static final String REMOTE_POD = "192.168.2.3";
    static final String CLIENT = "203.0.113.50";
    static final String NODE = PolicyHarness.NODE_IP;

    /** One row: source, destination, port, protocol, expected verdict, backends, dsr, source after SNAT. */
    record Row(String shape, String src, String dst, int port, Protocol protocol, Verdict verdict,
               Set<String> backends, boolean dsr, String sourceAfter) {
        @Override
        public String toString() {
            return shape + ": " + src + " -> " + dst + ":" + port + "/" + protocol;
        }
    }

    static PolicyHarness cluster(NetworkType type) {
        PolicyHarness h = new PolicyHarness(type, PolicyConfig.defaults().withForwardHealthCheckVip(true),
                List.of(new TestDsrFeature(false)));
        h.host.localEndpoint("EP-LOCAL", LOCAL_POD).localEndpoint("EP-ROOT", "192.168.4.1");
        h.rootEndpointIp = "192.168.4.1";
        h.add(svc("default", "web").type("NodePort").clusterIp("10.96.0.10").port("http", "TCP", 80, "8080", 30080)
                .build());
        h.add(slice("default", "web-1", "web").port("http", 8080).ready(LOCAL_POD, PolicyHarness.NODE)
                .ready(REMOTE_POD, "node-b").build());
        h.add(svc("default", "local").type("LoadBalancer").clusterIp("10.96.0.11")
                .port("http", "TCP", 80, "8080", 30081).etp("Local").healthCheckNodePort(31081)
                .ingress("198.51.100.7").externalIp("198.51.100.8").build());
        h.add(slice("default", "local-1", "local").port("http", 8080).ready(LOCAL_POD, PolicyHarness.NODE)
                .ready(REMOTE_POD, "node-b").build());
        h.add(svc("kube-system", "dns").clusterIp("10.96.0.53").port("dns", "UDP", 53, "53", 0).clientIpAffinity(0)
                .build());
        h.add(slice("kube-system", "dns-1", "dns").port("dns", "UDP", 53).ready(REMOTE_POD, "node-b").build());
        h.add(svc("default", "internal").clusterIp("10.96.0.12").port("http", 80, 8080).itp("Local").build());
        h.add(slice("default", "internal-1", "internal").port("http", 8080).ready(REMOTE_POD, "node-b").build());
        h.add(svc("default", "empty").clusterIp("10.96.0.13").port("http", 80, 8080).build());
        h.sync();
        return h;
    }

    static Stream<Arguments> rows() {
        String both = "192.168.2.3:8080,192.168.4.4:8080";
        String vip = PolicyHarness.SOURCE_VIP;
        return Stream.of(
                Arguments.of(NetworkType.OVERLAY, new Row("ClusterIP from a local pod", LOCAL_POD, "10.96.0.10", 80,
                        Protocol.TCP, Verdict.FORWARDED, set(both), false, LOCAL_POD)),
                Arguments.of(NetworkType.OVERLAY, new Row("ClusterIP from the host", NODE, "10.96.0.10", 80,
                        Protocol.TCP, Verdict.FORWARDED, set(both), false, vip)),
                Arguments.of(NetworkType.L2BRIDGE, new Row("ClusterIP from the host", NODE, "10.96.0.10", 80,
                        Protocol.TCP, Verdict.FORWARDED, set(both), false, NODE)),
                Arguments.of(NetworkType.OVERLAY, new Row("ClusterIP wrong port", LOCAL_POD, "10.96.0.10", 81,
                        Protocol.TCP, Verdict.NO_POLICY, set(""), false, LOCAL_POD)),
                Arguments.of(NetworkType.OVERLAY, new Row("ClusterIP wrong protocol", LOCAL_POD, "10.96.0.10", 80,
                        Protocol.UDP, Verdict.NO_POLICY, set(""), false, LOCAL_POD)),
                Arguments.of(NetworkType.OVERLAY, new Row("NodePort on the node IP", CLIENT, NODE, 30080,
                        Protocol.TCP, Verdict.FORWARDED, set(both), false, vip)),
                Arguments.of(NetworkType.L2BRIDGE, new Row("NodePort on the node IP", CLIENT, NODE, 30080,
                        Protocol.TCP, Verdict.FORWARDED, set(both), false, CLIENT)),
                Arguments.of(NetworkType.OVERLAY, new Row("NodePort on another address", CLIENT, "10.0.0.99", 30080,
                        Protocol.TCP, Verdict.NO_POLICY, set(""), false, CLIENT)),
                Arguments.of(NetworkType.OVERLAY, new Row("ETP Local NodePort is DSR to local endpoints", CLIENT,
                        NODE, 30081, Protocol.TCP, Verdict.FORWARDED, set("192.168.4.4:8080"), true, CLIENT)),
                Arguments.of(NetworkType.L2BRIDGE, new Row("ETP Local ingress is DSR to local endpoints", CLIENT,
                        "198.51.100.7", 80, Protocol.TCP, Verdict.FORWARDED, set("192.168.4.4:8080"), true, CLIENT)),
                Arguments.of(NetworkType.OVERLAY, new Row("ETP Local external IP", CLIENT, "198.51.100.8", 80,
                        Protocol.TCP, Verdict.FORWARDED, set("192.168.4.4:8080"), true, CLIENT)),
                Arguments.of(NetworkType.OVERLAY, new Row("ETP Local ClusterIP still reaches every node",
                        LOCAL_POD, "10.96.0.11", 80, Protocol.TCP, Verdict.FORWARDED, set(both), false, LOCAL_POD)),
                Arguments.of(NetworkType.OVERLAY, new Row("health check VIP to the root endpoint", CLIENT,
                        "198.51.100.7", 31081, Protocol.TCP, Verdict.FORWARDED, set("192.168.4.1:31081"), false,
                        vip)),
                Arguments.of(NetworkType.L2BRIDGE, new Row("UDP DNS with affinity", LOCAL_POD, "10.96.0.53", 53,
                        Protocol.UDP, Verdict.FORWARDED, set("192.168.2.3:53"), false, LOCAL_POD)),
                Arguments.of(NetworkType.OVERLAY, new Row("ITP Local with only remote endpoints", LOCAL_POD,
                        "10.96.0.12", 80, Protocol.TCP, Verdict.NO_POLICY, set(""), false, LOCAL_POD)),
                Arguments.of(NetworkType.L2BRIDGE, new Row("service without endpoints", LOCAL_POD, "10.96.0.13", 80,
                        Protocol.TCP, Verdict.NO_POLICY, set(""), false, LOCAL_POD)));
    }

    static Set<String> set(String csv) {
        return csv.isEmpty() ? Set.of() : Set.of(csv.split(","));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("rows")
    void packetsReachTheExpectedBackends(NetworkType type, Row row) {
        PolicyHarness h = cluster(type);
        TraceResult r = h.trace(row.src(), row.dst(), row.port(), row.protocol());
        assertThat(r.verdict()).as("verdict; " + r.explanation()).isEqualTo(row.verdict());
        assertThat(r.backends()).as("backends").isEqualTo(row.backends());
        assertThat(r.dsr()).as("dsr").isEqualTo(row.dsr());
        assertThat(r.sourceAddress()).as("source after SNAT; " + r.explanation()).isEqualTo(row.sourceAfter());
        assertThat(r.explanation()).isNotEmpty();
    }

    @Test
    void theTraceNamesTheServiceAndExplainsDsr() {
        PolicyHarness h = cluster(NetworkType.OVERLAY);
        TraceResult r = h.trace(CLIENT, NODE, 30081, Protocol.TCP);
        assertThat(r.desiredLoadBalancer().service().toString()).isEqualTo("default/local:http");
        assertThat(r.explanation()).anyMatch(line -> line.contains("DSR"));
        assertThat(r.loadBalancer().key().frontendVip()).isEmpty();
    }

    @Test
    void aTraceFromTheDesiredStateAloneMatchesTheProgrammedHost() {
        PolicyHarness h = cluster(NetworkType.OVERLAY);
        Packet p = new Packet(CLIENT, NODE, 30080, Protocol.TCP);
        TraceResult fromDesired = PacketTracer.trace(h.lastDesired, h.node(), p);
        TraceResult fromHost = PacketTracer.trace(h.host.observe(), h.node(), p);
        assertThat(fromDesired.verdict()).isEqualTo(fromHost.verdict());
        assertThat(fromDesired.backends()).isEqualTo(fromHost.backends());
        assertThat(fromDesired.sourceAddress()).isEqualTo(fromHost.sourceAddress());
        assertThat(fromDesired.desiredLoadBalancer()).isNotNull();
    }

    @Test
    void aLoadBalancerWhoseEndpointsVanishedDropsThePacket() {
        PolicyHarness h = cluster(NetworkType.L2BRIDGE);
        h.host.endpoints().remove(h.host.endpointByIp(REMOTE_POD).orElseThrow().id());
        TraceResult r = h.trace(LOCAL_POD, "10.96.0.53", 53, Protocol.UDP);
        assertThat(r.verdict()).isEqualTo(Verdict.DROPPED);
        assertThat(r.backends()).isEmpty();
    }

    @Test
    void anInvalidDestinationIsNoPolicyWithAnExplanation() {
        TraceResult r = PacketTracer.trace(cluster(NetworkType.L2BRIDGE).host.observe(),
                PolicyHarness.l2bridge().node(), new Packet(CLIENT, "not-an-ip", 80, Protocol.TCP));
        assertThat(r.verdict()).isEqualTo(Verdict.NO_POLICY);
        assertThat(r.explanation()).singleElement().asString().contains("not-an-ip");
    }
}
