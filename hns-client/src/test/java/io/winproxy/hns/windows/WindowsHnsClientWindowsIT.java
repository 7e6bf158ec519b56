package io.winproxy.hns.windows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The binding against the real {@code computenetwork.dll} and {@code vmcompute.dll} of a Windows host (run as an
 * administrator on a node with the Containers feature). The round trip creates one load balancer on an unused VIP
 * and port and deletes it in {@code finally}; it needs an existing endpoint to reference and is skipped otherwise.
 */
@EnabledOnOs(OS.WINDOWS)
class WindowsHnsClientWindowsIT {
    private static final String TEST_VIP = "10.254.254.254";
    private static final int TEST_PORT = 65123;
    private static final int TCP = 6;
    private static final int FLAG_ILB = 1;

    private static WindowsHnsClient client;

    @BeforeAll
    static void loadTheRealLibraries() {
        client = WindowsHnsClient.load();
    }

    @Test
    void theVersionProbeReportsAnHnsVersionWithTheV2Api() {
        HnsCapabilities capabilities = client.capabilities();

        assertThat(capabilities.version().major()).isGreaterThanOrEqualTo(9);
        assertThat(client.capabilities()).isSameAs(capabilities);
    }

    @Test
    void networksEndpointsAndLoadBalancersCanBeListed() {
        List<HostComputeNetwork> networks = client.listNetworks();
        for (HostComputeNetwork network : networks) {
            assertThat(network.id()).isNotBlank();
            assertThat(client.getNetworkById(network.id())).map(HostComputeNetwork::id)
                    .hasValueSatisfying(id -> assertThat(id).isEqualToIgnoringCase(network.id()));
            assertThat(client.listEndpoints(network.id()))
                    .allSatisfy(endpoint -> assertThat(endpoint.hostComputeNetwork())
                            .isEqualToIgnoringCase(network.id()));
        }
        assertThat(client.listLoadBalancers()).allSatisfy(lb -> assertThat(lb.id()).isNotBlank());
        assertThat(client.listLoadBalancerIds()).allSatisfy(id -> assertThat(id).hasSize(36));
    }

    @Test
    void deletingAnUnknownLoadBalancerIsNotFound() {
        String unknown = UUID.randomUUID().toString();

        assertThat(client.getLoadBalancer(unknown)).isEmpty();
        assertThatThrownBy(() -> client.deleteLoadBalancer(unknown))
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.isNotFound()).isTrue());
    }

    @Test
    void aLoadBalancerSurvivesACreateQueryDeleteRoundTrip() {
        Optional<HostComputeEndpoint> backend = client.listNetworks().stream()
                .flatMap(network -> client.listEndpoints(network.id()).stream())
                .findFirst();
        assumeTrue(backend.isPresent(), "no HNS endpoint on this host to reference");
        HostComputeLoadBalancer settings = new HostComputeLoadBalancer(null, List.of(backend.get().id()), "",
                List.of(TEST_VIP), List.of(new LoadBalancerPortMapping(TCP, TEST_PORT, TEST_PORT, 0, FLAG_ILB)),
                null, 0);

        HostComputeLoadBalancer created = null;
        try {
            created = client.createLoadBalancer(settings);
            String id = created.id();
            assertThat(id).hasSize(36);
            assertThat(created.frontendVips()).containsExactly(TEST_VIP);
            assertThat(client.getLoadBalancer(created.id())).map(HostComputeLoadBalancer::portMappings)
                    .contains(settings.portMappings());
            assertThat(client.listLoadBalancerIds()).anySatisfy(listed -> assertThat(listed).isEqualToIgnoringCase(id));
            if (client.capabilities().modifyLoadBalancer()) {
                HostComputeLoadBalancer modified = client.modifyLoadBalancer(created.id(), new HostComputeLoadBalancer(
                        null, settings.hostComputeEndpoints(), "", settings.frontendVips(),
                        List.of(new LoadBalancerPortMapping(TCP, TEST_PORT, TEST_PORT + 1, 0, FLAG_ILB)), null, 0));
                assertThat(modified.portMappings()).extracting(LoadBalancerPortMapping::externalPort)
                        .containsExactly(TEST_PORT + 1);
            }
        } finally {
            if (created != null) {
                client.deleteLoadBalancer(created.id());
            }
        }
        assertThat(client.getLoadBalancer(created.id())).isEmpty();
    }
}
