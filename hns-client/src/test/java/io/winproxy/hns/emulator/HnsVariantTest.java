package io.winproxy.hns.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.NetworkSession;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each {@link HnsVariant} as a client sees it through the {@link HnsClient} port: what a create answers, what can be
 * read back afterwards, which HRESULT fails, and which native calls were made; plus persistence through the state
 * file and combinations. Read-back is verbatim ({@link EmulatorFixture}), so every difference seen is the variant's.
 */
class HnsVariantTest {
    private static final String CHOSEN_LB = "77696e70-7278-4000-8000-000000000001";
    private static final String CHOSEN_EP = "77696e70-7278-4000-8000-000000000002";

    @TempDir
    Path dir;

    private static EmulatorFixture fixture(HnsVariant... variants) {
        EmulatorFixture f = EmulatorFixture.create();
        f.hns.setVariants(variants.length == 0 ? Set.of() : EnumSet.copyOf(List.of(variants)));
        f.hns.journal().reset();
        return f;
    }

    @Test
    void theDefaultHostHasNoVariantAndHonoursCallerIds() {
        EmulatorFixture f = fixture();
        HnsClient hns = f.hns;
        assertThat(f.hns.variants()).isEmpty();
        HostComputeLoadBalancer created = hns.createLoadBalancer(
                EmulatorFixture.clusterIp("10.96.0.10", 80, 0, f.pod1.id()).withId(CHOSEN_LB));
        assertThat(created.id()).isEqualTo(CHOSEN_LB);
        assertThat(hns.getLoadBalancer(CHOSEN_LB)).isPresent();
    }

    @Test
    void idsIgnoredCreatesUnderAnUpperCaseIdOfHnsOwnWhileTheAnswerCarriesTheCallersId() {
        EmulatorFixture f = fixture(HnsVariant.IDS_IGNORED);
        HnsClient hns = f.hns;

        HostComputeLoadBalancer created = hns.createLoadBalancer(
                EmulatorFixture.clusterIp("10.96.0.10", 80, 0, f.pod1.id()).withId(CHOSEN_LB));

        // The binding does not query a create with a caller ID, so it answers with the ID it sent.
        assertThat(created.id()).isEqualTo(CHOSEN_LB);
        assertThat(f.hns.journal().snapshot()).containsOnly(Map.entry("HcnCreateLoadBalancer", 1),
                Map.entry("HcnCloseLoadBalancer", 1));
        assertThat(hns.getLoadBalancer(CHOSEN_LB)).isEmpty();
        List<String> ids = hns.listLoadBalancerIds();
        assertThat(ids).hasSize(1);
        String actual = ids.get(0);
        assertThat(actual).isNotEqualToIgnoringCase(CHOSEN_LB).isEqualTo(actual.toUpperCase(Locale.ROOT));
        assertThat(hns.getLoadBalancer(actual).orElseThrow().frontendVips()).containsExactly("10.96.0.10");
        // The caller's ID was never taken, so a second create with it does not collide on the ID.
        hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.11", 80, 0, f.pod1.id()).withId(CHOSEN_LB));
        assertThat(hns.listLoadBalancerIds()).hasSize(2);
    }

    @Test
    void idsIgnoredAppliesToEndpointCreatesOnASessionAndToCreatesWithoutAnId() {
        EmulatorFixture f = fixture(HnsVariant.IDS_IGNORED);
        HnsClient hns = f.hns;
        HostComputeEndpoint answered;
        try (NetworkSession session = hns.openNetwork(f.network.id())) {
            answered = session.createEndpoint(HostComputeEndpoint.remote(f.network.id(), "10.244.3.9",
                    "02-11-0A-F4-03-09", "192.168.10.23").withId(CHOSEN_EP));
        }
        assertThat(answered.id()).isEqualTo(CHOSEN_EP);
        assertThat(hns.getEndpoint(CHOSEN_EP)).isEmpty();
        HostComputeEndpoint stored = hns.listEndpoints(f.network.id()).stream()
                .filter(e -> e.ipAddresses().contains("10.244.3.9")).findFirst().orElseThrow();
        assertThat(stored.id()).isNotEqualToIgnoringCase(CHOSEN_EP).isEqualTo(stored.id().toUpperCase(Locale.ROOT));

        // Without a caller ID the create queries the object and answers with HNS's ID.
        HostComputeLoadBalancer created = hns.createLoadBalancer(
                EmulatorFixture.clusterIp("10.96.0.12", 80, 0, f.pod1.id()));
        assertThat(created.id()).isEqualTo(created.id().toUpperCase(Locale.ROOT));
        assertThat(hns.getLoadBalancer(created.id())).isPresent();
    }

    @Test
    void idsRejectedFailsACreateWithACallerGuidWithEInvalidArgAndCreatesNothing() {
        EmulatorFixture f = fixture(HnsVariant.IDS_REJECTED);
        HnsClient hns = f.hns;
        HostComputeLoadBalancer lb = EmulatorFixture.clusterIp("10.96.0.10", 80, 0, f.pod1.id());

        assertThatThrownBy(() -> hns.createLoadBalancer(lb.withId(CHOSEN_LB)))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.E_INVALIDARG));
        assertThatThrownBy(() -> hns.createEndpoint(f.network.id(), HostComputeEndpoint.remote(f.network.id(),
                "10.244.3.9", "02-11-0A-F4-03-09", "192.168.10.23").withId(CHOSEN_EP)))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.E_INVALIDARG));
        assertThat(hns.listLoadBalancerIds()).isEmpty();
        assertThat(hns.getEndpoint(CHOSEN_EP)).isEmpty();

        // The zero GUID (and no ID) is HNS choosing: accepted.
        HostComputeLoadBalancer created = hns.createLoadBalancer(lb.withId("00000000-0000-0000-0000-000000000000"));
        assertThat(hns.getLoadBalancer(created.id())).isPresent();
    }

    @Test
    void extraFlagsAddsBitsOnReadBackOnlyAndNeverToWhatIsStored() {
        EmulatorFixture f = fixture(HnsVariant.EXTRA_FLAGS);
        HnsClient hns = f.hns;
        int pmFlags = LoadBalancerPortMapping.FLAG_ILB;
        HostComputeLoadBalancer created = hns.createLoadBalancer(
                EmulatorFixture.clusterIp("10.96.0.10", 80, HostComputeLoadBalancer.FLAG_DSR, f.pod1.id()));

        for (HostComputeLoadBalancer read : List.of(created, hns.getLoadBalancer(created.id()).orElseThrow(),
                hns.listLoadBalancers().get(0))) {
            assertThat(read.flags()).isEqualTo(HostComputeLoadBalancer.FLAG_DSR | HnsVariant.EXTRA_LB_FLAGS);
            assertThat(read.portMappings().get(0).flags()).isEqualTo(pmFlags | HnsVariant.EXTRA_PORT_MAPPING_FLAGS);
        }
        f.hns.setVariants(Set.of());
        HostComputeLoadBalancer stored = hns.getLoadBalancer(created.id()).orElseThrow();
        assertThat(stored.flags()).isEqualTo(HostComputeLoadBalancer.FLAG_DSR);
        assertThat(stored.portMappings().get(0).flags()).isEqualTo(pmFlags);
    }

    @Test
    void modifyNoopAnswersSuccessAndChangesNothing() {
        EmulatorFixture f = new EmulatorFixture(HnsEmulator.builder().seed(42).echo(EchoProfile.VERBATIM)
                .version(new HnsVersion(15, 5)).variants(HnsVariant.MODIFY_NOOP).build());
        HnsClient hns = f.hns;
        HostComputeLoadBalancer created = hns.createLoadBalancer(
                EmulatorFixture.clusterIp("10.96.0.10", 80, 0, f.pod1.id()));
        f.hns.journal().reset();

        HostComputeLoadBalancer answered = hns.modifyLoadBalancer(created.id(),
                EmulatorFixture.clusterIp("10.96.0.10", 81, 0, f.pod2.id()));

        assertThat(answered).isEqualTo(created);
        assertThat(hns.getLoadBalancer(created.id()).orElseThrow()).isEqualTo(created);
        assertThat(f.hns.journal().snapshot()).containsEntry("HcnModifyLoadBalancer", 1)
                .containsEntry("HcnQueryLoadBalancerProperties", 2);

        // Control: the same modify on 15.5 without the variant replaces the document.
        f.hns.setVariants(Set.of());
        HostComputeLoadBalancer replaced = hns.modifyLoadBalancer(created.id(),
                EmulatorFixture.clusterIp("10.96.0.10", 81, 0, f.pod2.id()));
        assertThat(replaced.hostComputeEndpoints()).containsExactly(f.pod2.id());
    }

    @Test
    void duplicateFrontendFailsACreateWithErrorAlreadyExistsEvenWithTheZeroGuid() {
        EmulatorFixture f = fixture(HnsVariant.DUPLICATE_FRONTEND);
        HnsClient hns = f.hns;
        HostComputeLoadBalancer first = hns.createLoadBalancer(
                EmulatorFixture.clusterIp("10.96.0.10", 80, 0, f.pod1.id()));

        assertThatThrownBy(() -> hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.10", 80, 0, f.pod2.id())))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.hresult()).isEqualTo(HResults.ERROR_ALREADY_EXISTS);
                    assertThat(e.isAlreadyExists()).isTrue();
                });
        assertThatThrownBy(() -> hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.10", 80, 0,
                f.pod2.id()).withId(CHOSEN_LB)))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.ERROR_ALREADY_EXISTS));
        assertThat(hns.listLoadBalancerIds()).containsExactly(first.id());

        // Control: without the variant the same collision is HCN_E_PORT_ALREADY_EXISTS.
        f.hns.setVariants(Set.of());
        assertThatThrownBy(() -> hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.10", 80, 0, f.pod2.id())))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.HCN_E_PORT_ALREADY_EXISTS));
    }

    @Test
    void variantsCombine() {
        EmulatorFixture f = fixture(HnsVariant.IDS_IGNORED, HnsVariant.DUPLICATE_FRONTEND, HnsVariant.EXTRA_FLAGS);
        HnsClient hns = f.hns;
        hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.10", 80, 0, f.pod1.id()).withId(CHOSEN_LB));
        String actual = hns.listLoadBalancerIds().get(0);
        assertThat(actual).isNotEqualToIgnoringCase(CHOSEN_LB);
        assertThat(hns.getLoadBalancer(actual).orElseThrow().flags()).isEqualTo(HnsVariant.EXTRA_LB_FLAGS);
        assertThatThrownBy(() -> hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.10", 80, 0,
                f.pod2.id()).withId(CHOSEN_LB)))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.ERROR_ALREADY_EXISTS));
    }

    @Test
    void variantsAreSavedInTheStateFileAndSeenByAnotherProcessFromItsNextCall() {
        Path file = dir.resolve("hns.json");
        EmulatorFixture f = new EmulatorFixture(HnsEmulator.builder().stateFile(file).echo(EchoProfile.VERBATIM)
                .build());
        HnsEmulator operator = HnsEmulator.openExisting(file);

        operator.setVariants(EnumSet.of(HnsVariant.IDS_REJECTED, HnsVariant.EXTRA_FLAGS));

        assertThat(f.hns.variants()).containsExactlyInAnyOrder(HnsVariant.IDS_REJECTED, HnsVariant.EXTRA_FLAGS);
        HnsClient agent = f.hns;
        assertThatThrownBy(() -> agent.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.10", 80, 0,
                f.pod1.id()).withId(CHOSEN_LB)))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.E_INVALIDARG));
        // A fresh process reading the snapshot and log sees them too; clearing is saved the same way.
        assertThat(HnsEmulator.openExisting(file).variants()).hasSize(2);
        f.hns.compactStateFile();
        assertThat(HnsEmulator.openExisting(file).variants()).hasSize(2);
        operator.setVariants(Set.of());
        assertThat(f.hns.variants()).isEmpty();
        HostComputeLoadBalancer created = agent.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.10", 80, 0,
                f.pod1.id()).withId(CHOSEN_LB));
        assertThat(created.flags()).isZero();
    }

    @Test
    void policyNotFoundAnswersAnUnknownLoadBalancerIdWithTheHcnPolicyCodeWhichStillReadsAsAbsent() {
        EmulatorFixture f = fixture(HnsVariant.POLICY_NOT_FOUND);
        assertThat(f.hns.getLoadBalancer(CHOSEN_LB)).isEmpty();
        assertThat(f.hns.journal().failuresByHresult()).containsOnlyKeys(HResults.HCN_E_POLICY_NOT_FOUND);
        assertThatThrownBy(() -> f.hns.deleteLoadBalancer(CHOSEN_LB)).isInstanceOfSatisfying(HnsException.class,
                e -> {
                    assertThat(e.hresult()).isEqualTo(HResults.HCN_E_POLICY_NOT_FOUND);
                    assertThat(e.isNotFound()).isTrue();
                });
        // Endpoints keep ERROR_NOT_FOUND.
        assertThatThrownBy(() -> f.hns.deleteEndpoint(CHOSEN_EP)).isInstanceOfSatisfying(HnsException.class,
                e -> assertThat(e.hresult()).isEqualTo(HResults.ERROR_NOT_FOUND));
    }

    @Test
    void namesParseCaseInsensitivelyAndAnUnknownNameListsTheKnownOnes() {
        assertThat(HnsVariant.parse(" IDS-Ignored ")).isEqualTo(HnsVariant.IDS_IGNORED);
        for (HnsVariant v : HnsVariant.values()) {
            assertThat(HnsVariant.parse(v.text())).isEqualTo(v);
        }
        assertThatThrownBy(() -> HnsVariant.parse("ids-random"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown HNS variant 'ids-random' (known: ids-ignored, ids-rejected, extra-flags, "
                        + "modify-noop, duplicate-frontend, policy-not-found)");
    }
}
