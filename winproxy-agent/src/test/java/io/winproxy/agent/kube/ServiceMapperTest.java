package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.winproxy.policy.model.ServiceInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceMapperTest {
    private final List<String> warnings = new ArrayList<>();
    private final ServiceMapper mapper = new ServiceMapper(warnings::add);

    @Test
    void aLoadBalancerServiceMapsEveryFieldTheProxyReads() {
        Service service = new ServiceBuilder()
                .withNewMetadata().withNamespace("shop").withName("storefront")
                .withAnnotations(Map.of("service.kubernetes.io/topology-mode", "Auto")).endMetadata()
                .withNewSpec().withType("LoadBalancer").withClusterIP("10.96.20.40")
                .withClusterIPs("10.96.20.40", "fd00::40").withIpFamilies("IPv4", "IPv6")
                .addNewPort().withName("https").withProtocol("TCP").withPort(443)
                .withTargetPort(new IntOrString(8443)).withNodePort(31443).endPort()
                .addNewPort().withName("web").withProtocol("UDP").withPort(80)
                .withTargetPort(new IntOrString("http")).endPort()
                .withExternalIPs("192.0.2.7").withSessionAffinity("ClientIP")
                .withNewSessionAffinityConfig().withNewClientIP(600).endSessionAffinityConfig()
                .withExternalTrafficPolicy("Local").withInternalTrafficPolicy("Cluster")
                .withHealthCheckNodePort(32000).withTrafficDistribution("PreferClose")
                .endSpec()
                .withNewStatus().withNewLoadBalancer().addNewIngress().withIp("203.0.113.10").withIpMode("VIP")
                .endIngress().endLoadBalancer().endStatus()
                .build();

        ServiceInfo info = mapper.map(service).orElseThrow();

        assertThat(info).isEqualTo(new ServiceInfo("shop", "storefront", "LoadBalancer",
                List.of("10.96.20.40", "fd00::40"), List.of("IPv4", "IPv6"),
                List.of(new ServiceInfo.ServicePortSpec("https", "TCP", 443, "8443", 31443),
                        new ServiceInfo.ServicePortSpec("web", "UDP", 80, "http", 0)),
                List.of("192.0.2.7"), List.of(new ServiceInfo.LoadBalancerIngress("203.0.113.10", null, "VIP")),
                "ClientIP", 600, "Cluster", "Local", 32000, "PreferClose",
                Map.of("service.kubernetes.io/topology-mode", "Auto")));
        assertThat(warnings).isEmpty();
    }

    @Test
    void onlyTheAnnotationsTheProxyReadsAreKept() {
        Service service = new ServiceBuilder().withNewMetadata().withNamespace("default").withName("web")
                .withAnnotations(Map.of("preserve-destination", "true",
                        "kubectl.kubernetes.io/last-applied-configuration", "{\"big\": \"" + "x".repeat(2000) + "\"}",
                        "example.com/owner", "team-a")).endMetadata()
                .withNewSpec().withClusterIP("10.96.0.9").addNewPort().withPort(80).endPort().endSpec().build();

        ServiceInfo info = mapper.map(service).orElseThrow();

        assertThat(info.annotations()).containsExactly(Map.entry("preserve-destination", "true"));
    }

    @Test
    void clusterIpsFallBackToTheSingularClusterIp() {
        Service service = new ServiceBuilder().withNewMetadata().withNamespace("default").withName("old").endMetadata()
                .withNewSpec().withClusterIP("10.96.0.99").addNewPort().withPort(80).endPort().endSpec().build();

        ServiceInfo info = mapper.map(service).orElseThrow();

        assertThat(info.clusterIps()).containsExactly("10.96.0.99");
        assertThat(info.type()).isEqualTo("ClusterIP");
        assertThat(info.sessionAffinity()).isEqualTo("None");
        assertThat(info.ports()).containsExactly(new ServiceInfo.ServicePortSpec("", null, 80, null, 0));
    }

    @Test
    void aHeadlessServiceKeepsNoneAsItsClusterIp() {
        Service service = new ServiceBuilder().withNewMetadata().withNamespace("default").withName("db").endMetadata()
                .withNewSpec().withClusterIP("None").withClusterIPs("None").endSpec().build();

        assertThat(mapper.map(service).orElseThrow().clusterIps()).containsExactly("None");
    }

    @Test
    void aServiceWithoutSpecMapsWithNoPortsAndAWarningNamingIt() {
        Service service = new ServiceBuilder().withNewMetadata().withNamespace("ns1").withName("broken").endMetadata()
                .build();

        ServiceInfo info = mapper.map(service).orElseThrow();

        assertThat(info.ports()).isEmpty();
        assertThat(info.clusterIps()).isEmpty();
        assertThat(warnings).singleElement().asString().contains("Service ns1/broken").contains("no spec");
    }

    @Test
    void aPortWithoutANumberIsDroppedAndTheOthersKept() {
        Service service = new ServiceBuilder().withNewMetadata().withNamespace("ns1").withName("half").endMetadata()
                .withNewSpec().withClusterIP("10.96.0.1").addNewPort().withName("bad").endPort()
                .addNewPort().withName("good").withPort(81).endPort().endSpec().build();

        ServiceInfo info = mapper.map(service).orElseThrow();

        assertThat(info.ports()).extracting(ServiceInfo.ServicePortSpec::name).containsExactly("good");
        assertThat(warnings).singleElement().asString().contains("Service ns1/half").contains("bad");
    }

    @Test
    void aServiceWithoutANameMapsToNothing() {
        assertThat(mapper.map(new Service())).isEmpty();
        assertThat(mapper.map(null)).isEmpty();
        assertThat(warnings).hasSize(2);
    }

    @Test
    void aMissingNamespaceMeansDefault() {
        Service service = new ServiceBuilder().withNewMetadata().withName("x").endMetadata().withNewSpec().endSpec()
                .build();

        assertThat(mapper.map(service).orElseThrow().key()).isEqualTo("default/x");
    }
}
