package io.winproxy.hns.windows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.NativeCallListener;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The binding against the real {@code computenetwork.dll} and {@code vmcompute.dll} of a Windows host (run as an
 * administrator on a node with the Containers feature). The round trips create one load balancer each on an unused
 * VIP and port and delete it in {@code finally}; they need an existing endpoint to reference and are skipped
 * otherwise.
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

    @Test
    void aLoadBalancerCreatedWithACallerChosenIdHasThatIdOnTheHost() {
        Optional<HostComputeEndpoint> backend = anyEndpoint();
        assumeTrue(backend.isPresent(), "no HNS endpoint on this host to reference");
        String id = UUID.randomUUID().toString().toUpperCase(Locale.ROOT);
        int port = TEST_PORT + 2;
        HostComputeLoadBalancer settings = new HostComputeLoadBalancer(id, List.of(backend.get().id()), "",
                List.of(TEST_VIP), List.of(new LoadBalancerPortMapping(TCP, port, port, 0, FLAG_ILB)), null, 0);
        RecordingListener calls = new RecordingListener();

        try {
            client.setNativeCallListener(calls);
            HostComputeLoadBalancer created = client.createLoadBalancer(settings);
            assertThat(calls.calls()).containsExactly("HcnCreateLoadBalancer", "HcnCloseLoadBalancer");
            calls.clear();
            Optional<HostComputeLoadBalancer> read = client.getLoadBalancer(id);
            assertThat(calls.calls()).containsExactly("HcnOpenLoadBalancer", "HcnQueryLoadBalancerProperties",
                    "HcnCloseLoadBalancer");
            client.setNativeCallListener(NativeCallListener.NONE);

            assertThat(created.id()).isEqualTo(id);
            assertThat(read).as("HNS stored the load balancer under the caller's id").hasValueSatisfying(lb -> {
                assertThat(lb.id()).isEqualToIgnoringCase(id);
                assertThat(lb.frontendVips()).containsExactly(TEST_VIP);
                assertThat(lb.portMappings()).isEqualTo(settings.portMappings());
            });
            assertThat(client.listLoadBalancerIds()).anySatisfy(listed -> assertThat(listed).isEqualToIgnoringCase(id));
        } finally {
            client.setNativeCallListener(NativeCallListener.NONE);
            deleteTestLoadBalancers(port);
        }
        assertThat(client.getLoadBalancer(id)).isEmpty();
    }

    @Test
    void anExistingEndpointIsReadByADirectOpenOfItsGuid() {
        Optional<HostComputeEndpoint> listed = anyEndpoint();
        assumeTrue(listed.isPresent(), "no HNS endpoint on this host");
        RecordingListener calls = new RecordingListener();

        Optional<HostComputeEndpoint> read;
        try {
            client.setNativeCallListener(calls);
            read = client.getEndpoint(listed.get().id());
        } finally {
            client.setNativeCallListener(NativeCallListener.NONE);
        }

        assertThat(calls.calls()).containsExactly("HcnOpenEndpoint", "HcnQueryEndpointProperties", "HcnCloseEndpoint");
        assertThat(read).map(HostComputeEndpoint::id)
                .hasValueSatisfying(id -> assertThat(id).isEqualToIgnoringCase(listed.get().id()));
        assertThat(client.getEndpoint(UUID.randomUUID().toString())).isEmpty();
    }

    private static Optional<HostComputeEndpoint> anyEndpoint() {
        return client.listNetworks().stream()
                .flatMap(network -> client.listEndpoints(network.id()).stream())
                .findFirst();
    }

    /** Deletes every load balancer on the test VIP and port, whatever id HNS gave it, so a failed run leaks none. */
    private static void deleteTestLoadBalancers(int port) {
        client.listLoadBalancers().stream()
                .filter(lb -> lb.frontendVips().contains(TEST_VIP))
                .filter(lb -> lb.portMappings().stream().anyMatch(m -> m.externalPort() == port))
                .forEach(lb -> client.deleteLoadBalancer(lb.id()));
    }
}
