package io.winproxy.policy.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EndpointResolverTest {
    private static final String IP = "10.244.2.3";

    private static ObservedEndpoint remote(String id, String pa) {
        return new ObservedEndpoint(id, List.of(IP), true, pa);
    }

    @Test
    void aLocalEndpointWinsOverARemoteOneWithTheSameIpWhateverTheOrderAndOwnership() {
        EndpointResolver resolver = new EndpointResolver(Map.of(IP, "192.168.1.12"));
        resolver.add(ObservedEndpoint.local("LOCAL", IP), false);
        resolver.add(remote("REMOTE", "192.168.1.12"), true);
        assertThat(resolver.resolve(IP)).isEqualTo("local");

        EndpointResolver reversed = new EndpointResolver(Map.of(IP, "192.168.1.12"));
        reversed.add(remote("REMOTE", "192.168.1.12"), true);
        reversed.add(ObservedEndpoint.local("LOCAL", IP), false);
        assertThat(reversed.resolve(IP)).isEqualTo("local");
    }

    @Test
    void anEndpointBeingDeletedByThePlanLosesToAnyOther() {
        EndpointResolver resolver = new EndpointResolver(Map.of());
        resolver.add(ObservedEndpoint.local("LOCAL", IP), false);
        resolver.add(remote("REMOTE", ""), true);
        resolver.retire("local");
        assertThat(resolver.resolve(IP)).isEqualTo("remote");
    }

    @Test
    void amongRemoteEndpointsTheOneWithTheWantedProviderAddressWinsThenTheOwnedThenTheNewest() {
        EndpointResolver byPa = new EndpointResolver(Map.of(IP, "192.168.1.13"));
        byPa.add(remote("NEW-PA", "192.168.1.13"), false);
        byPa.add(remote("OLD-PA", "192.168.1.12"), true);
        assertThat(byPa.resolve(IP)).isEqualTo("new-pa");

        EndpointResolver byOwnership = new EndpointResolver(Map.of());
        byOwnership.add(remote("OWNED", ""), true);
        byOwnership.add(remote("FOREIGN", ""), false);
        assertThat(byOwnership.resolve(IP)).isEqualTo("owned");

        EndpointResolver byAge = new EndpointResolver(Map.of());
        byAge.add(remote("OLDER", ""), true);
        byAge.add(remote("NEWER", ""), true);
        assertThat(byAge.resolve(IP)).isEqualTo("newer");
    }

    @Test
    void aRemovedEndpointNoLongerResolvesAndUnknownIpsResolveToNothing() {
        EndpointResolver resolver = new EndpointResolver(Map.of());
        resolver.add(remote("REMOTE", ""), true);
        resolver.remove("remote", List.of(IP));
        assertThat(resolver.resolve(IP)).isNull();
        assertThat(resolver.resolve("10.9.9.9")).isNull();
    }
}
