package io.winproxy.hns.windows;

import static io.winproxy.hns.windows.TestIds.EP_ID;
import static io.winproxy.hns.windows.TestIds.EP_ID_2;
import static io.winproxy.hns.windows.TestIds.EP_ID_3;
import static io.winproxy.hns.windows.TestIds.ERROR_ALREADY_EXISTS;
import static io.winproxy.hns.windows.TestIds.LB_ID;
import static io.winproxy.hns.windows.TestIds.UNKNOWN_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.NativeCallListener;
import io.winproxy.hns.NetworkSession;
import io.winproxy.hns.emulator.EchoProfile;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.IpConfiguration;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JNA client (over the stand-in library) and the HNS emulator answer the {@link HnsClient} contract the same
 * way, and make the same native calls for it (by export name, as the {@link NativeCallListener} reports them), so
 * code tested and call counts measured against the emulator hold on Windows.
 */
@EnabledOnOs(OS.LINUX)
class HnsClientParityTest {

    /**
     * A client with one overlay network whose pod subnet is 10.244.0.0/24, at HNS 15.4 until {@code version} is
     * given another one (before the client's first capabilities probe).
     */
    private record Fixture(HnsClient client, String networkId, Consumer<HnsVersion> version, Runnable verify)
            implements AutoCloseable {
        /** Runs {@code verify} (the stand-in: every string and handle released); JUnit closes each fixture argument. */
        @Override
        public void close() {
            verify.run();
        }
    }

    /** A test run once against each of {@link #fixtures()}, whose fixture is verified when JUnit closes it. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @ParameterizedTest
    @MethodSource("fixtures")
    @interface ParityTest {
    }

    /** A fresh fixture of each client, made when its test starts. */
    static Stream<Named<Fixture>> fixtures() {
        return clients().map(named -> Named.of(named.getName(), named.getPayload().get()));
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
                    HnsEmulator emulator = HnsEmulator.builder().echo(EchoProfile.VERBATIM).build();
                    String networkId = new EmulatedHost(emulator, EmulatedHost.NetworkType.OVERLAY, "vxlan0", "node-a")
                            .syncNetwork(List.of(new EmulatedHost.Node("node-a", "10.244.0.0/24", "192.168.1.10")))
                            .id();
                    return new Fixture(emulator, networkId, emulator::setVersion, () -> { });
                }));
    }

    @ParityTest
    void aLoadBalancerGoesThroughCreateGetModifyAndDeleteAlike(Fixture fixture) {
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
    }

    @ParityTest
    void modifyBeforeHns154IsRefusedAsNotImplementedAndChangesNothing(Fixture fixture) {
        // (On 15.4 itself the binding refuses client-side while the emulated HNS accepts the call and keeps the old
        // backends, as real 15.4 does: the dataplane checks the result, see HnsDataplaneTest.)
        fixture.version().accept(HnsVersion.WINDOWS_SERVER_2022);
        HnsClient client = fixture.client();
        HostComputeEndpoint a = client.createEndpoint(fixture.networkId(), remoteEndpoint("10.244.1.5"));
        HostComputeEndpoint b = client.createEndpoint(fixture.networkId(), remoteEndpoint("10.244.2.7"));
        HostComputeLoadBalancer created = client.createLoadBalancer(loadBalancer(80, a.id()));

        assertThat(client.capabilities().modifyLoadBalancer()).isFalse();
        assertThatThrownBy(() -> client.modifyLoadBalancer(created.id(), loadBalancer(80, a.id(), b.id())))
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.isNotImplemented()).isTrue());
        assertThat(client.getLoadBalancer(created.id())).contains(created);
    }

    @ParityTest
    void unknownIdsAreEmptyOnLookupAndNotFoundOnDelete(Fixture fixture) {
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
    }

    @ParityTest
    void aLoadBalancerReferencingAnUnknownEndpointIsAnInvalidJsonReference(Fixture fixture) {
        assertThatThrownBy(() -> fixture.client().createLoadBalancer(loadBalancer(80, UNKNOWN_ID)))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.HCN_E_INVALID_JSON_REFERENCE));
        assertThat(fixture.client().listLoadBalancerIds()).isEmpty();
    }

    @ParityTest
    void aCallerChosenIdBecomesTheNewObjectsIdAlike(Fixture fixture) {
        HnsClient client = fixture.client();

        HostComputeEndpoint endpoint = client.createEndpoint(fixture.networkId(),
                remoteEndpoint("10.244.1.5").withId(EP_ID));
        HostComputeLoadBalancer lb = client.createLoadBalancer(loadBalancer(80, EP_ID).withId(LB_ID));

        assertThat(endpoint.id()).isEqualToIgnoringCase(EP_ID);
        assertThat(endpoint.hostComputeNetwork()).isEqualToIgnoringCase(fixture.networkId());
        assertThat(lb.id()).isEqualToIgnoringCase(LB_ID);
        assertThat(client.getEndpoint(EP_ID)).hasValueSatisfying(read -> {
            assertThat(read.id()).isEqualToIgnoringCase(EP_ID);
            assertThat(read.ipAddresses()).containsExactly("10.244.1.5");
        });
        assertThat(client.getLoadBalancer(LB_ID)).hasValueSatisfying(read -> {
            assertThat(read.id()).isEqualToIgnoringCase(LB_ID);
            assertThat(read.withId(LB_ID)).isEqualTo(lb.withId(LB_ID));
        });
        assertThat(client.listEndpointIds(fixture.networkId()))
                .singleElement().satisfies(id -> assertThat(id).isEqualToIgnoringCase(EP_ID));
        assertThat(client.listLoadBalancerIds())
                .singleElement().satisfies(id -> assertThat(id).isEqualToIgnoringCase(LB_ID));
    }

    @ParityTest
    void aSecondObjectWithTheSameIdFailsWithErrorAlreadyExistsAlike(Fixture fixture) {
        HnsClient client = fixture.client();
        client.createEndpoint(fixture.networkId(), remoteEndpoint("10.244.1.5").withId(EP_ID));
        client.createLoadBalancer(loadBalancer(80, EP_ID).withId(LB_ID));

        assertThatThrownBy(() -> client.createEndpoint(fixture.networkId(),
                remoteEndpoint("10.244.1.6").withId(EP_ID)))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(ERROR_ALREADY_EXISTS));
        assertThatThrownBy(() -> client.createLoadBalancer(loadBalancer(81, EP_ID).withId(LB_ID)))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(ERROR_ALREADY_EXISTS));
        assertThat(client.listEndpointIds(fixture.networkId())).hasSize(1);
        assertThat(client.listLoadBalancerIds()).hasSize(1);
    }

    @ParityTest
    void aSessionCreatesEndpointsOnItsNetworkAlike(Fixture fixture) {
        HnsClient client = fixture.client();

        List<HostComputeEndpoint> created = new ArrayList<>();
        try (NetworkSession session = client.openNetwork(fixture.networkId())) {
            assertThat(session.networkId()).isEqualTo(fixture.networkId());
            created.add(session.createEndpoint(remoteEndpoint("10.244.1.5").withId(EP_ID)));
            created.add(session.createEndpoint(remoteEndpoint("10.244.1.6")));
        }

        assertThat(created).allSatisfy(e -> assertThat(e.hostComputeNetwork())
                .isEqualToIgnoringCase(fixture.networkId()));
        assertThat(client.listEndpointIds(fixture.networkId())).hasSize(2)
                .anySatisfy(id -> assertThat(id).isEqualToIgnoringCase(EP_ID))
                .anySatisfy(id -> assertThat(id).isEqualToIgnoringCase(created.get(1).id()));
        assertThatThrownBy(() -> client.openNetwork(UNKNOWN_ID))
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.isNotFound()).isTrue());
    }

    // ---- native call sequences ------------------------------------------------------------------------------

    /** What a sequence scenario starts from: two remote endpoints, one load balancer on the first, HNS 15.5. */
    private record World(HnsClient client, String networkId, HostComputeEndpoint a, HostComputeEndpoint b,
                         HostComputeLoadBalancer lb) {
    }

    /** One call of the client under test and the native calls it must make, by export name, in order. */
    private record Scenario(Consumer<World> action, List<String> expected) {
    }

    private static final List<String> OPEN_QUERY_CLOSE_LB = List.of("HcnOpenLoadBalancer",
            "HcnQueryLoadBalancerProperties", "HcnCloseLoadBalancer");
    private static final List<String> OPEN_QUERY_CLOSE_EP = List.of("HcnOpenEndpoint", "HcnQueryEndpointProperties",
            "HcnCloseEndpoint");

    static Stream<Arguments> sequences() {
        List<Named<Scenario>> scenarios = List.of(
                scenario("listLoadBalancerIds", w -> w.client().listLoadBalancerIds(),
                        List.of("HcnEnumerateLoadBalancers")),
                scenario("listEndpointIds", w -> w.client().listEndpointIds(w.networkId()),
                        List.of("HcnEnumerateEndpoints")),
                scenario("listLoadBalancers", w -> w.client().listLoadBalancers(),
                        concat(List.of("HcnEnumerateLoadBalancers"), OPEN_QUERY_CLOSE_LB)),
                scenario("listEndpoints", w -> w.client().listEndpoints(w.networkId()),
                        concat(List.of("HcnEnumerateEndpoints"), OPEN_QUERY_CLOSE_EP, OPEN_QUERY_CLOSE_EP)),
                scenario("getLoadBalancer", w -> w.client().getLoadBalancer(w.lb().id()), OPEN_QUERY_CLOSE_LB),
                scenario("getLoadBalancer of an unknown id", w -> w.client().getLoadBalancer(UNKNOWN_ID),
                        List.of("HcnOpenLoadBalancer")),
                scenario("getEndpoint", w -> w.client().getEndpoint(w.a().id()), OPEN_QUERY_CLOSE_EP),
                scenario("getEndpoint of an unknown id", w -> w.client().getEndpoint(UNKNOWN_ID),
                        List.of("HcnOpenEndpoint")),
                scenario("getNetworkById", w -> w.client().getNetworkById(w.networkId()),
                        List.of("HcnEnumerateNetworks", "HcnOpenNetwork", "HcnQueryNetworkProperties",
                                "HcnCloseNetwork")),
                scenario("getNetworkByName", w -> w.client().getNetworkByName("vxlan0"),
                        List.of("HcnEnumerateNetworks", "HcnOpenNetwork", "HcnQueryNetworkProperties",
                                "HcnCloseNetwork")),
                scenario("createLoadBalancer without an id", w -> w.client().createLoadBalancer(
                        loadBalancer(81, w.a().id())),
                        List.of("HcnCreateLoadBalancer", "HcnQueryLoadBalancerProperties", "HcnCloseLoadBalancer")),
                scenario("createLoadBalancer with an id", w -> w.client().createLoadBalancer(
                        loadBalancer(81, w.a().id()).withId(LB_ID)),
                        List.of("HcnCreateLoadBalancer", "HcnCloseLoadBalancer")),
                scenario("createLoadBalancer with a taken id (fails)", w -> assertThatThrownBy(
                        () -> w.client().createLoadBalancer(loadBalancer(81, w.a().id()).withId(w.lb().id())))
                        .isInstanceOf(HnsException.class),
                        List.of("HcnCreateLoadBalancer")),
                scenario("createEndpoint without an id", w -> w.client().createEndpoint(w.networkId(),
                        remoteEndpoint("10.244.3.1")),
                        List.of("HcnOpenNetwork", "HcnCreateEndpoint", "HcnQueryEndpointProperties",
                                "HcnCloseEndpoint", "HcnCloseNetwork")),
                scenario("createEndpoint with an id", w -> w.client().createEndpoint(w.networkId(),
                        remoteEndpoint("10.244.3.1").withId(EP_ID)),
                        List.of("HcnOpenNetwork", "HcnCreateEndpoint", "HcnCloseEndpoint", "HcnCloseNetwork")),
                scenario("a session creating 3 endpoints with ids", w -> {
                    try (NetworkSession session = w.client().openNetwork(w.networkId())) {
                        session.createEndpoint(remoteEndpoint("10.244.3.1").withId(EP_ID));
                        session.createEndpoint(remoteEndpoint("10.244.3.2").withId(EP_ID_2));
                        session.createEndpoint(remoteEndpoint("10.244.3.3").withId(EP_ID_3));
                    }
                }, List.of("HcnOpenNetwork", "HcnCreateEndpoint", "HcnCloseEndpoint", "HcnCreateEndpoint",
                        "HcnCloseEndpoint", "HcnCreateEndpoint", "HcnCloseEndpoint", "HcnCloseNetwork")),
                scenario("modifyLoadBalancer", w -> w.client().modifyLoadBalancer(w.lb().id(),
                        loadBalancer(80, w.a().id(), w.b().id())),
                        List.of("HcnOpenLoadBalancer", "HcnModifyLoadBalancer", "HcnQueryLoadBalancerProperties",
                                "HcnCloseLoadBalancer")),
                scenario("deleteLoadBalancer", w -> w.client().deleteLoadBalancer(w.lb().id()),
                        List.of("HcnDeleteLoadBalancer")),
                scenario("deleteEndpoint", w -> w.client().deleteEndpoint(w.b().id()),
                        List.of("HcnDeleteEndpoint")));
        return clients().flatMap(client -> scenarios.stream().map(scenario -> Arguments.of(client, scenario)));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("sequences")
    void eachMethodMakesTheSameNativeCallsAlike(Supplier<Fixture> fixtures, Scenario scenario) {
        Fixture fixture = fixtures.get();
        fixture.version().accept(new HnsVersion(15, 5));
        HnsClient client = fixture.client();
        assertThat(client.capabilities().modifyLoadBalancer()).isTrue();
        HostComputeEndpoint a = client.createEndpoint(fixture.networkId(), remoteEndpoint("10.244.1.5"));
        HostComputeEndpoint b = client.createEndpoint(fixture.networkId(), remoteEndpoint("10.244.2.7"));
        HostComputeLoadBalancer lb = client.createLoadBalancer(loadBalancer(80, a.id()));
        List<String> calls = Collections.synchronizedList(new ArrayList<>());
        client.setNativeCallListener(calls::add);

        scenario.action().accept(new World(client, fixture.networkId(), a, b, lb));

        client.setNativeCallListener(NativeCallListener.NONE);
        assertThat(calls).isEqualTo(scenario.expected());
        fixture.verify().run();
    }

    private static Named<Scenario> scenario(String name, Consumer<World> action, List<String> expected) {
        return Named.of(name, new Scenario(action, expected));
    }

    @SafeVarargs
    private static List<String> concat(List<String>... parts) {
        return Stream.of(parts).flatMap(List::stream).toList();
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
