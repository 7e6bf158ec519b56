package io.winproxy.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.winproxy.agent.kube.EndpointSliceMapper;
import io.winproxy.agent.kube.NodeMapper;
import io.winproxy.agent.kube.ServiceMapper;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExampleClusterTest {
    @TempDir
    Path dir;

    private ManifestSet set;
    private final List<String> warnings = new ArrayList<>();

    @BeforeEach
    void extractAndLoad() {
        ExampleCluster.extractTo(dir);
        set = new ManifestLoader().load(dir);
    }

    private Map<String, ServiceInfo> services() {
        ServiceMapper mapper = new ServiceMapper(warnings::add);
        return set.services().stream().map(s -> mapper.map(s).orElseThrow())
                .collect(Collectors.toMap(ServiceInfo::key, Function.identity()));
    }

    private List<EndpointSliceInfo> slices() {
        EndpointSliceMapper mapper = new EndpointSliceMapper(warnings::add);
        return set.endpointSlices().stream().map(s -> mapper.map(s).orElseThrow()).toList();
    }

    private Map<String, NodeInfo> nodes() {
        NodeMapper mapper = new NodeMapper(warnings::add);
        return set.nodes().stream().map(n -> mapper.map(n).orElseThrow())
                .collect(Collectors.toMap(NodeInfo::name, Function.identity()));
    }

    @Test
    void everyBundledFileLoadsWithoutProblemsOrMappingWarnings() {
        assertThat(set.problems()).isEmpty();
        assertThat(set.nodes()).hasSize(3);
        assertThat(set.services()).hasSize(5);
        assertThat(set.endpointSlices()).hasSize(5);
        services();
        slices();
        nodes();
        assertThat(warnings).isEmpty();
    }

    @Test
    void theDefaultNodeIsAWindowsNodeAndTheOthersAreInOtherZones() {
        Map<String, NodeInfo> nodes = nodes();
        NodeInfo self = nodes.get(ExampleCluster.defaultNodeName());

        assertThat(self.labels()).containsEntry("kubernetes.io/os", "windows");
        assertThat(nodes.values()).extracting(n -> n.labels().get("kubernetes.io/os"))
                .containsExactlyInAnyOrder("windows", "windows", "linux");
        assertThat(nodes.values()).extracting(NodeInfo::zone).doesNotHaveDuplicates().doesNotContainNull();
        assertThat(nodes.values()).allSatisfy(n -> {
            assertThat(n.podCidrs()).hasSize(1);
            assertThat(n.internalIps()).hasSize(1);
        });
    }

    @Test
    void theServicesCoverTheAdvertisedCases() {
        Map<String, ServiceInfo> services = services();

        ServiceInfo dns = services.get("kube-system/kube-dns");
        assertThat(dns.clusterIps()).containsExactly("10.96.0.10");
        assertThat(dns.ports()).extracting(ServiceInfo.ServicePortSpec::protocol, ServiceInfo.ServicePortSpec::port)
                .contains(tuple("UDP", 53), tuple("TCP", 53));
        assertThat(services.values()).extracting(ServiceInfo::type)
                .contains("ClusterIP", "NodePort", "LoadBalancer");
        ServiceInfo lb = services.values().stream().filter(s -> s.type().equals("LoadBalancer")).findFirst()
                .orElseThrow();
        assertThat(lb.externalTrafficPolicy()).isEqualTo("Local");
        assertThat(lb.healthCheckNodePort()).isPositive();
        assertThat(lb.loadBalancerIngress()).isNotEmpty();
        assertThat(services.values()).anySatisfy(s -> assertThat(s.sessionAffinity()).isEqualTo("ClientIP"));
    }

    @Test
    void everySliceBelongsToAServiceAndItsPodsLieInTheirNodesPodCidr() {
        Map<String, ServiceInfo> services = services();
        Map<String, NodeInfo> nodes = nodes();

        for (EndpointSliceInfo slice : slices()) {
            assertThat(services).containsKey(slice.namespace() + "/" + slice.serviceName());
            assertThat(slice.lastChangeTriggerTime()).isNotNull();
            for (EndpointSliceInfo.SliceEndpoint endpoint : slice.endpoints()) {
                NodeInfo node = nodes.get(endpoint.nodeName());
                assertThat(node).as("node of %s", endpoint.addresses()).isNotNull();
                assertThat(endpoint.zone()).isEqualTo(node.zone());
                assertThat(inCidr(endpoint.addresses().get(0), node.podCidrs().get(0)))
                        .as("%s in %s", endpoint.addresses(), node.podCidrs()).isTrue();
            }
        }
        List<EndpointSliceInfo> dnsSlices = slices().stream().filter(s -> "kube-dns".equals(s.serviceName()))
                .toList();
        assertThat(dnsSlices.get(0).endpoints()).extracting(EndpointSliceInfo.SliceEndpoint::nodeName)
                .doesNotHaveDuplicates().hasSize(2);
    }

    @Test
    void extractingTwiceReplacesTheFiles() {
        Path again = ExampleCluster.extractTo(dir);

        assertThat(again).isEqualTo(dir);
        assertThat(new ManifestLoader().load(dir).all()).hasSize(13);
        assertThat(ExampleCluster.FILES).allSatisfy(f -> assertThat(dir.resolve(f)).isRegularFile());
    }

    private static boolean inCidr(String ip, String cidr) {
        try {
            String[] parts = cidr.split("/");
            int bits = Integer.parseInt(parts[1]);
            BigInteger a = new BigInteger(1, InetAddress.getByName(ip).getAddress());
            BigInteger b = new BigInteger(1, InetAddress.getByName(parts[0]).getAddress());
            return a.shiftRight(32 - bits).equals(b.shiftRight(32 - bits));
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
