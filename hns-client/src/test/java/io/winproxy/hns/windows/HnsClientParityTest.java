package io.winproxy.hns.windows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.IpConfiguration;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JNA client (over the stand-in library) and the HNS emulator answer the {@link HnsClient} contract the same
 * way, so code tested against the emulator behaves the same on Windows.
 */
@EnabledOnOs(OS.LINUX)
class HnsClientParityTest {
    private static final String UNKNOWN_ID = "0A0B0C0D-1111-2222-3333-444455556666";

    /**
     * A client with one overlay network whose pod subnet is 10.244.0.0/24, at HNS 15.4 until {@code version} is
     * given another one (before the client's first capabilities probe).
     */
    private record Fixture(HnsClient client, String networkId, Consumer<HnsVersion> version, Runnable verify) {
    }

    static Stream<Named<Supplier<Fixture>>> clients() {
        return Stream.of(
                Named.of("WindowsHnsClient over the stand-in library", () -> {
                    StandIn standIn = StandIn.fresh();
                    String networkId = standIn.seedNetwork("vxlan0", "Overlay");
                    return new Fixture(standIn.client(), networkId,
                            v -> standIn.control.standin_set_version(v.major(), v.minor()),
                            standIn::assertEverythingReleased);
                }),
                Named.of("HnsEmulator", () -> {
                    HnsEmulator emulator = HnsEmulator.inMemory();
                    String networkId = new EmulatedHost(emulator, EmulatedHost.NetworkType.OVERLAY, "vxlan0", "node-a")
                            .syncNetwork(List.of(new EmulatedHost.Node("node-a", "10.244.0.0/24", "192.168.1.10")))
                            .id();
                    return new Fixture(emulator, networkId, emulator::setVersion, () -> { });
                }));
    }

    @ParameterizedTest
    @MethodSource("clients")
    void aLoadBalancerGoesThroughCreateGetModifyAndDeleteAlike(Supplier<Fixture> fixtures) {
        Fixture fixture = fixtures.get();
        fixture.version().accept(new HnsVersion(15, 5));
        HnsClient client = fixture.client();
        HostComputeEndpoint a = client.createEndpoint(fixture.networkId(), remoteEndpoint("10.244.1.5"));
        HostComputeEndpoint b = client.createEndpoint(fixture.networkId(), remoteEndpoint("10.244.2.7"));

        HostComputeLoadBalancer created = client.createLoadBalancer(loadBalancer(80, a.id()));
        HostComputeLoadBalancer modified = client.modifyLoadBalancer(created.id(), loadBalancer(81, a.id(), b.id()));

        assertThat(a.hostComputeNetwork()).isEqualToIgnoringCase(fixture.networkId());
        assertThat(a.isRemote()).isTrue();
        assertThat(created.id()).hasSize(36);
        assertThat(created.frontendVips()).containsExactly("10.96.0.10");
        assertThat(created.sourceVip()).isEqualTo("10.244.0.2");
        assertThat(modified.id()).isEqualTo(created.id());
        assertThat(modified.portMappings()).containsExactly(new LoadBalancerPortMapping(6, 8080, 81, 0, 1));
        assertThat(modified.hostComputeEndpoints()).containsExactly(a.id(), b.id());
        assertThat(client.getLoadBalancer(created.id())).contains(modified);
        assertThat(client.listLoadBalancers()).containsExactly(modified);
        assertThat(client.listEndpoints(fixture.networkId())).containsExactlyInAnyOrder(a, b);

        client.deleteLoadBalancer(created.id());
        client.deleteEndpoint(a.id());

        assertThat(client.listLoadBalancerIds()).isEmpty();
        assertThat(client.getEndpoint(a.id())).isEmpty();
        assertThat(client.getEndpoint(b.id())).contains(b);
        fixture.verify().run();
    }

    @ParameterizedTest
    @MethodSource("clients")
    void modifyOnHns154IsRefusedAsNotImplementedAndChangesNothing(Supplier<Fixture> fixtures) {
        Fixture fixture = fixtures.get();
        HnsClient client = fixture.client();
        HostComputeEndpoint a = client.createEndpoint(fixture.networkId(), remoteEndpoint("10.244.1.5"));
        HostComputeEndpoint b = client.createEndpoint(fixture.networkId(), remoteEndpoint("10.244.2.7"));
        HostComputeLoadBalancer created = client.createLoadBalancer(loadBalancer(80, a.id()));

        assertThat(client.capabilities().modifyLoadBalancer()).isFalse();
        assertThatThrownBy(() -> client.modifyLoadBalancer(created.id(), loadBalancer(80, a.id(), b.id())))
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.isNotImplemented()).isTrue());
        assertThat(client.getLoadBalancer(created.id())).contains(created);
        fixture.verify().run();
    }

    @ParameterizedTest
    @MethodSource("clients")
    void unknownIdsAreEmptyOnLookupAndNotFoundOnDelete(Supplier<Fixture> fixtures) {
        Fixture fixture = fixtures.get();
        HnsClient client = fixture.client();

        assertThat(client.getLoadBalancer(UNKNOWN_ID)).isEmpty();
        assertThat(client.getEndpoint(UNKNOWN_ID)).isEmpty();
        assertThat(client.getNetworkById(UNKNOWN_ID)).isEmpty();
        assertThat(client.getNetworkByName("no-such-network")).isEmpty();
        assertThat(client.getNetworkByName("vxlan0")).isPresent();
        assertThatThrownBy(() -> client.deleteLoadBalancer(UNKNOWN_ID))
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.isNotFound()).isTrue());
        assertThatThrownBy(() -> client.deleteEndpoint(UNKNOWN_ID))
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.isNotFound()).isTrue());
        fixture.verify().run();
    }

    @ParameterizedTest
    @MethodSource("clients")
    void aLoadBalancerReferencingAnUnknownEndpointIsAnInvalidJsonReference(Supplier<Fixture> fixtures) {
        Fixture fixture = fixtures.get();

        assertThatThrownBy(() -> fixture.client().createLoadBalancer(loadBalancer(80, UNKNOWN_ID)))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.HCN_E_INVALID_JSON_REFERENCE));
        assertThat(fixture.client().listLoadBalancerIds()).isEmpty();
        fixture.verify().run();
    }

    private static HostComputeEndpoint remoteEndpoint(String ip) {
        return new HostComputeEndpoint(null, null, null, List.of(), List.of(new IpConfiguration(ip, 32)), null,
                HostComputeEndpoint.FLAG_REMOTE_ENDPOINT, null);
    }

    private static HostComputeLoadBalancer loadBalancer(int port, String... endpointIds) {
        return new HostComputeLoadBalancer(null, List.of(endpointIds), "10.244.0.2", List.of("10.96.0.10"),
                List.of(new LoadBalancerPortMapping(6, 8080, port, 0, 1)), null, 0);
    }
}
