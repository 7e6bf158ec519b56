package io.winproxy.agent.dataplane;

import static io.winproxy.agent.dataplane.DataplaneWorld.SYNC_PERIOD;
import static io.winproxy.agent.dataplane.DataplaneWorld.desired;
import static io.winproxy.agent.dataplane.DataplaneWorld.dns;
import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsObjectKind;
import io.winproxy.hns.emulator.HnsVariant;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanCalculator;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every "no such object" an open or delete by ID may answer means absent; a code nobody knows is settled by the next
 * enumerate, never by an exception out of the observe, a read-back or a delete.
 */
class NotFoundCodesTest {
    /** An HRESULT in HCN's facility that no public table names. */
    private static final int UNKNOWN = 0x803B00FF;

    @TempDir
    Path stateDir;

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final HnsEmulator hns = HnsEmulator.builder().version(new HnsVersion(15, 5)).build();

    {
        DataplaneWorld.overlayHost(hns);
    }

    private HnsDataplane dataplane() {
        return new HnsDataplane(hns, "overlay", OwnershipJournal.open(stateDir), SYNC_PERIOD, nanos::get,
                new DriftBudget(SYNC_PERIOD, 100), () -> UUID.randomUUID().toString());
    }

    private static ApplyResult sync(HnsDataplane dp, DesiredState desired) {
        return dp.apply(PlanCalculator.plan(desired, dp.observe(), dp.journal().ownership(), dp.modifySupported()));
    }

    private static DesiredState dnsOnly() {
        return new DesiredState(List.of(dns()), List.of(), List.of());
    }

    @Test
    void theWholeHcnNotFoundFamilyMeansAbsent() {
        for (int code : List.of(HResults.ERROR_NOT_FOUND, HResults.HCN_E_POLICY_NOT_FOUND,
                HResults.HCN_E_ENDPOINT_NOT_FOUND, HResults.HCN_E_NETWORK_NOT_FOUND, HResults.HCN_E_LAYER_NOT_FOUND, HResults.HCN_E_SUBNET_NOT_FOUND)) {
            assertThat(HResults.isNotFound(code)).as(HResults.describe(code)).isTrue();
        }
        assertThat(HResults.isNotFound(HResults.HCN_E_SWITCH_NOT_FOUND)).as("a host problem, not a gone object")
                .isFalse();
        assertThat(HResults.isNotFound(HResults.HCN_E_PORT_NOT_FOUND)).as("an endpoint without its port exists")
                .isFalse();
        assertThat(HResults.isKnown(UNKNOWN)).isFalse();
    }

    @Test
    void aLoadBalancerThatVanishedBeforeItsDeleteIsForgottenWhenHnsSaysPolicyNotFound() {
        hns.setVariants(Set.of(HnsVariant.POLICY_NOT_FOUND));
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        Plan plan = PlanCalculator.plan(dnsOnly(), dp.observe(), dp.journal().ownership(), dp.modifySupported());
        String webId = dp.journal().ownership().loadBalancerIds().stream()
                .filter(id -> dp.journal().loadBalancer(id).orElseThrow().service().equals("default/web:http"))
                .findFirst().orElseThrow();
        hns.deleteLoadBalancer(webId); // gone between the observe and the apply

        ApplyResult result = dp.apply(plan);

        assertThat(result.failures()).isEmpty();
        assertThat(dp.journal().ownsLoadBalancer(webId)).isFalse();
        assertThat(hns.journal().failuresByHresult()).containsKey(HResults.HCN_E_POLICY_NOT_FOUND);
    }

    @Test
    void aDeleteAnsweredWithAnUnknownCodeIsSettledByTheNextEnumerate() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        hns.faults().failNext(HnsCall.DELETE, HnsObjectKind.LOAD_BALANCER, 1, UNKNOWN);

        ApplyResult first = sync(dp, dnsOnly());
        // No exception, no failure of the delete; the remote endpoint web used is still referenced, so its own
        // delete fails (HCN_E_ENTITY_HAS_REFERENCES) and waits too.
        assertThat(first.failures()).noneMatch(f -> f.op().equals("delete-load-balancer"));
        assertThat(hns.listLoadBalancerIds()).as("still there").hasSize(2);
        assertThat(dp.journal().ownership().loadBalancerIds()).as("still owned").hasSize(2);

        nanos.addAndGet(SYNC_PERIOD.toNanos());
        sync(dp, dnsOnly());
        assertThat(hns.listLoadBalancers()).singleElement()
                .satisfies(lb -> assertThat(lb.frontendVips()).containsExactly("10.96.0.10"));
        assertThat(dp.journal().ownership().loadBalancerIds()).hasSize(1);
    }

    @Test
    void anOpenOfANewObjectAnsweredWithAnUnknownCodeDoesNotFailTheObserveAndIsReadNextTime() {
        String endpoint = hns.listEndpointIds(hns.getNetworkByName("overlay").orElseThrow().id()).get(0);
        HostComputeLoadBalancer foreign = hns.createLoadBalancer(HostComputeLoadBalancer.of(List.of(endpoint), "",
                "10.96.0.99", new LoadBalancerPortMapping(LoadBalancerPortMapping.PROTOCOL_TCP, 8080, 80, 0, 0), 0));
        HnsDataplane dp = dataplane();
        hns.faults().failNext(HnsCall.OPEN, HnsObjectKind.LOAD_BALANCER, 1, UNKNOWN);

        assertThat(dp.observe().loadBalancers()).as("not read yet").isEmpty();
        assertThat(dp.observe().loadBalancers()).singleElement()
                .satisfies(lb -> assertThat(lb.id().toLowerCase(Locale.ROOT))
                        .isEqualTo(foreign.id().toLowerCase(Locale.ROOT)));
    }
}
