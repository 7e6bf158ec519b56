package io.winproxy.hns.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.model.HcnPolicy;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.IpConfiguration;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.hns.model.SchemaVersion;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Read-back as Windows Server echoes it (the pessimistic assumptions of {@link EchoProfile}): what HNS returns
 * differs from what it was given, while what it stores, and lookups, do not.
 */
class EmulatorEchoProfileTest {
    private static final String GUID = "[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}";
    private static final int ILB_AND_VIP_EXTERNAL_IP = LoadBalancerPortMapping.FLAG_ILB
            | LoadBalancerPortMapping.FLAG_VIP_EXTERNAL_IP;

    private final EmulatorFixture f = EmulatorFixture.create();

    @Test
    void theDefaultProfileIsTheOneOfTheEmulatedVersionAndFollowsItsChanges() {
        HnsEmulator hns = HnsEmulator.inMemory();
        assertThat(hns.echo()).isEqualTo(EchoProfile.WS2025);

        hns.setVersion(HnsVersion.WINDOWS_SERVER_2022);
        assertThat(hns.echo()).isEqualTo(EchoProfile.WS2022);
        hns.setVersion(HnsVersion.WINDOWS_SERVER_2019);
        assertThat(hns.echo()).isEqualTo(EchoProfile.WS2019);
        hns.setEcho(EchoProfile.VERBATIM);
        assertThat(hns.echo()).isEqualTo(EchoProfile.VERBATIM);
        hns.setEcho(null);
        assertThat(hns.echo()).isEqualTo(EchoProfile.WS2019);
        assertThat(HnsEmulator.builder().version(HnsVersion.WINDOWS_SERVER_2022).echo(EchoProfile.WS2025).build()
                .echo()).isEqualTo(EchoProfile.WS2025);
    }

    @Test
    void versionsMapToProfilesAtHns12And15() {
        assertThat(EchoProfile.forVersion(new HnsVersion(11, 99))).isEqualTo(EchoProfile.WS2019);
        assertThat(EchoProfile.forVersion(new HnsVersion(12, 0))).isEqualTo(EchoProfile.WS2022);
        assertThat(EchoProfile.forVersion(new HnsVersion(14, 9))).isEqualTo(EchoProfile.WS2022);
        assertThat(EchoProfile.forVersion(new HnsVersion(15, 0))).isEqualTo(EchoProfile.WS2025);
        assertThat(EchoProfile.forVersion(new HnsVersion(16, 1))).isEqualTo(EchoProfile.WS2025);
    }

    @ParameterizedTest
    @EnumSource(value = EchoProfile.class, names = {"WS2019", "WS2022", "WS2025"})
    void windowsServerProfilesDropPortMappingFlag16OnReadBackButStoreIt(EchoProfile profile) {
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(withMappingFlags(ILB_AND_VIP_EXTERNAL_IP));
        f.hns.setEcho(profile);

        assertThat(f.hns.getLoadBalancer(lb.id()).orElseThrow().portMapping().orElseThrow().flags())
                .isEqualTo(LoadBalancerPortMapping.FLAG_ILB);
        assertThat(f.hns.listLoadBalancers()).allSatisfy(read ->
                assertThat(read.portMapping().orElseThrow().flags()).isEqualTo(LoadBalancerPortMapping.FLAG_ILB));
        f.hns.setEcho(EchoProfile.VERBATIM);
        assertThat(f.hns.getLoadBalancer(lb.id()).orElseThrow().portMapping().orElseThrow().flags())
                .isEqualTo(ILB_AND_VIP_EXTERNAL_IP);
    }

    @ParameterizedTest
    @EnumSource(value = EchoProfile.class, names = {"WS2019", "WS2022", "WS2025"})
    void windowsServerProfilesDropTheProviderAddressOfRemoteEndpointsOnly(EchoProfile profile) {
        HostComputeEndpoint withPaOnLocal = f.hns.createEndpoint(f.network.id(), new HostComputeEndpoint(null,
                "local-with-pa", null, List.of(HcnPolicy.providerAddress("192.168.10.21")),
                List.of(new IpConfiguration("10.244.1.40", 24)), null, 0, SchemaVersion.V2));
        f.hns.setEcho(profile);

        HostComputeEndpoint remote = f.hns.getEndpoint(f.remote.id()).orElseThrow();
        assertThat(remote.providerAddress()).isEmpty();
        assertThat(remote.isRemote()).isTrue();
        assertThat(f.hns.getEndpoint(withPaOnLocal.id()).orElseThrow().providerAddress()).contains("192.168.10.21");
        assertThat(f.hns.listEndpoints(f.network.id())).filteredOn(HostComputeEndpoint::isRemote)
                .allSatisfy(e -> assertThat(e.policies()).isEmpty());
        f.hns.setEcho(EchoProfile.VERBATIM);
        assertThat(f.hns.getEndpoint(f.remote.id()).orElseThrow().providerAddress()).contains("192.168.10.22");
    }

    @ParameterizedTest
    @EnumSource(value = EchoProfile.class, names = {"WS2019", "WS2022", "WS2025"})
    void windowsServerProfilesRenderIpv6AddressesFullyExpanded(EchoProfile profile) {
        HostComputeEndpoint dual = f.hns.createEndpoint(f.network.id(), new HostComputeEndpoint(null, null, null,
                List.of(), List.of(new IpConfiguration("10.244.3.9", 0), new IpConfiguration("fd00:10:244:3::9", 0)),
                null, HostComputeEndpoint.FLAG_REMOTE_ENDPOINT, SchemaVersion.V2));
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(HostComputeLoadBalancer.of(List.of(dual.id()),
                "FD00::2", "fd00::a", new LoadBalancerPortMapping(6, 8080, 80, 0, 0),
                HostComputeLoadBalancer.FLAG_IPV6));
        f.hns.setEcho(profile);

        HostComputeLoadBalancer read = f.hns.getLoadBalancer(lb.id()).orElseThrow();
        assertThat(read.frontendVips()).containsExactly("fd00:0:0:0:0:0:0:a");
        assertThat(read.sourceVip()).isEqualTo("fd00:0:0:0:0:0:0:2");
        assertThat(f.hns.getEndpoint(dual.id()).orElseThrow().ipAddresses())
                .containsExactly("10.244.3.9", "fd00:10:244:3:0:0:0:9");
        f.hns.setEcho(EchoProfile.VERBATIM);
        assertThat(f.hns.getLoadBalancer(lb.id()).orElseThrow().frontendVips()).containsExactly("fd00::a");
    }

    @ParameterizedTest
    @EnumSource(value = EchoProfile.class, names = {"WS2019", "WS2022", "WS2025"})
    void windowsServerProfilesReturnGuidsUpperCaseWhileLookupsTakeAnyCase(EchoProfile profile) {
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id(), f.remote.id()));
        f.hns.setEcho(profile);

        assertThat(f.hns.listLoadBalancerIds()).containsExactly(lb.id().toUpperCase(Locale.ROOT));
        assertThat(f.hns.listEndpointIds(f.network.id())).allMatch(id -> id.matches(GUID)).hasSize(3);
        HostComputeLoadBalancer read = f.hns.getLoadBalancer(lb.id()).orElseThrow();
        assertThat(read.id()).isEqualTo(lb.id().toUpperCase(Locale.ROOT));
        assertThat(read.hostComputeEndpoints()).containsExactly(f.pod1.id().toUpperCase(Locale.ROOT),
                f.remote.id().toUpperCase(Locale.ROOT));
        HostComputeEndpoint ep = f.hns.getEndpoint(f.remote.id()).orElseThrow();
        assertThat(ep.id()).matches(GUID);
        assertThat(ep.hostComputeNetwork()).isEqualTo(f.network.id().toUpperCase(Locale.ROOT));
        assertThat(f.hns.listNetworks()).extracting(n -> n.id()).allMatch(id -> id.matches(GUID));
        assertThat(f.hns.getNetworkById(f.network.id())).isPresent();
        // Lookups and deletes by the upper-case (or braced) form find the same objects.
        assertThat(f.hns.getLoadBalancer("{" + read.id() + "}")).contains(read);
        f.hns.deleteLoadBalancer(read.id());
        f.hns.deleteEndpoint(ep.id());
        assertThat(f.hns.listLoadBalancerIds()).isEmpty();
    }

    @Test
    void ws2019AlsoDropsTheDistributionTypeWhichLaterProfilesKeep() {
        f.hns.setVersion(HnsVersion.WINDOWS_SERVER_2019);
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(HostComputeLoadBalancer.of(List.of(f.pod1.id()), "",
                "10.96.0.1", new LoadBalancerPortMapping(6, 8080, 80, LoadBalancerPortMapping.DISTRIBUTION_SOURCE_IP,
                        LoadBalancerPortMapping.FLAG_ILB), 0));

        f.hns.setEcho(EchoProfile.WS2019);
        assertThat(f.hns.getLoadBalancer(lb.id()).orElseThrow().portMapping().orElseThrow().distributionType())
                .isZero();
        for (EchoProfile later : List.of(EchoProfile.WS2022, EchoProfile.WS2025, EchoProfile.VERBATIM)) {
            f.hns.setEcho(later);
            assertThat(f.hns.getLoadBalancer(lb.id()).orElseThrow().portMapping().orElseThrow().distributionType())
                    .as(later.name()).isEqualTo(LoadBalancerPortMapping.DISTRIBUTION_SOURCE_IP);
        }
    }

    @Test
    void aCreateThatLetsHnsChooseTheIdReturnsTheReadBackWhileAChosenIdReturnsWhatWasStored() {
        f.hns.setEcho(EchoProfile.WS2025);
        String chosen = "2f0c9f0e-5b7a-4c1e-9d1a-0a0b0c0d0e01";

        HostComputeLoadBalancer assigned = f.hns.createLoadBalancer(withMappingFlags(ILB_AND_VIP_EXTERNAL_IP));
        HostComputeLoadBalancer given = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.2", 80, 0,
                f.pod1.id()).withId(chosen));

        assertThat(assigned.id()).matches(GUID);
        assertThat(assigned.portMapping().orElseThrow().flags()).isEqualTo(LoadBalancerPortMapping.FLAG_ILB);
        assertThat(given.id()).isEqualTo(chosen);
        assertThat(given.hostComputeEndpoints()).containsExactly(f.pod1.id());
    }

    @Test
    void theDocumentAModifyReturnsIsAReadBackToo() {
        f.hns.setVersion(new HnsVersion(15, 5));
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()));
        f.hns.setEcho(null);

        HostComputeLoadBalancer modified = f.hns.modifyLoadBalancer(lb.id(), withMappingFlags(
                ILB_AND_VIP_EXTERNAL_IP));

        assertThat(modified.id()).isEqualTo(lb.id().toUpperCase(Locale.ROOT));
        assertThat(modified.portMapping().orElseThrow().flags()).isEqualTo(LoadBalancerPortMapping.FLAG_ILB);
    }

    @Test
    void verbatimReturnsExactlyWhatWasStored() {
        HostComputeLoadBalancer sent = HostComputeLoadBalancer.of(List.of(f.pod1.id()), "fd00::2", "fd00::a",
                new LoadBalancerPortMapping(6, 8080, 80, 2, ILB_AND_VIP_EXTERNAL_IP),
                HostComputeLoadBalancer.FLAG_IPV6);

        HostComputeLoadBalancer created = f.hns.createLoadBalancer(sent);

        assertThat(created).isEqualTo(sent.withId(created.id()));
        assertThat(f.hns.listLoadBalancers()).containsExactly(created);
        assertThat(f.hns.getEndpoint(f.remote.id())).contains(f.remote);
    }

    @Test
    void ipv6TextIsExpandedOnlyForIpv6Literals() {
        assertThat(Ipv6.expanded("fd00::a")).isEqualTo("fd00:0:0:0:0:0:0:a");
        assertThat(Ipv6.expanded("::")).isEqualTo("0:0:0:0:0:0:0:0");
        assertThat(Ipv6.expanded("::1")).isEqualTo("0:0:0:0:0:0:0:1");
        assertThat(Ipv6.expanded("FD00:0DB8::")).isEqualTo("fd00:db8:0:0:0:0:0:0");
        assertThat(Ipv6.expanded("::ffff:10.0.0.1")).isEqualTo("0:0:0:0:0:ffff:a00:1");
        assertThat(Ipv6.expanded("1:2:3:4:5:6:7:8")).isEqualTo("1:2:3:4:5:6:7:8");
        assertThat(Ipv6.expanded("10.0.0.1")).isEqualTo("10.0.0.1");
        assertThat(Ipv6.expanded("1::2::3")).isEqualTo("1::2::3");
        assertThat(Ipv6.expanded("1:2:3:4:5:6:7:8:9")).isEqualTo("1:2:3:4:5:6:7:8:9");
        assertThat(Ipv6.expanded("fd00::g")).isEqualTo("fd00::g");
        assertThat(Ipv6.canonical("FD00::A")).isEqualTo(Ipv6.canonical("fd00:0:0:0:0:0:0:a"));
    }

    private HostComputeLoadBalancer withMappingFlags(int flags) {
        return HostComputeLoadBalancer.of(List.of(f.pod1.id()), "", "10.96.0.9",
                new LoadBalancerPortMapping(6, 8080, 80, 0, flags), 0);
    }
}
