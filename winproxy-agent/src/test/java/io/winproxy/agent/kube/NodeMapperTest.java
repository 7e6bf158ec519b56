package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.winproxy.policy.model.NodeInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeMapperTest {
    private final List<String> warnings = new ArrayList<>();
    private final NodeMapper mapper = new NodeMapper(warnings::add);

    @Test
    void aNodeMapsZonePodCidrsInternalIpsAndTaints() {
        Node node = new NodeBuilder()
                .withNewMetadata().withName("win-node-1")
                .withLabels(Map.of("kubernetes.io/os", "windows", "topology.kubernetes.io/zone", "zone-a"))
                .endMetadata()
                .withNewSpec().withPodCIDR("10.244.1.0/24").withPodCIDRs("10.244.1.0/24", "fd00:1::/64")
                .addNewTaint().withKey("ToBeDeletedByClusterAutoscaler").withEffect("NoSchedule").endTaint()
                .endSpec()
                .withNewStatus().addNewAddress("10.0.0.11", "InternalIP").addNewAddress("win-node-1", "Hostname")
                .addNewAddress("203.0.113.5", "ExternalIP").addNewAddress("fd00::11", "InternalIP").endStatus()
                .build();

        NodeInfo info = mapper.map(node).orElseThrow();

        assertThat(info).isEqualTo(new NodeInfo("win-node-1",
                Map.of("kubernetes.io/os", "windows", "topology.kubernetes.io/zone", "zone-a"),
                List.of("10.244.1.0/24", "fd00:1::/64"), List.of("10.0.0.11", "fd00::11"), "zone-a", false,
                List.of("ToBeDeletedByClusterAutoscaler")));
        assertThat(warnings).isEmpty();
    }

    @Test
    void podCidrsFallBackToTheSingularPodCidr() {
        Node node = new NodeBuilder().withNewMetadata().withName("n").endMetadata()
                .withNewSpec().withPodCIDR("10.244.2.0/24").endSpec().build();

        assertThat(mapper.map(node).orElseThrow().podCidrs()).containsExactly("10.244.2.0/24");
    }

    @Test
    void aDeletionTimestampMarksTheNodeAsBeingDeleted() {
        Node node = new NodeBuilder().withNewMetadata().withName("n")
                .withDeletionTimestamp("2026-01-15T10:00:00Z").endMetadata().withNewSpec().endSpec().build();

        NodeInfo info = mapper.map(node).orElseThrow();

        assertThat(info.beingDeleted()).isTrue();
        assertThat(info.zone()).isNull();
    }

    @Test
    void aNodeWithoutSpecOrStatusMapsToEmptyValuesWithAWarningNamingIt() {
        Node node = new NodeBuilder().withNewMetadata().withName("bare").endMetadata().build();

        NodeInfo info = mapper.map(node).orElseThrow();

        assertThat(info.podCidrs()).isEmpty();
        assertThat(info.internalIps()).isEmpty();
        assertThat(info.taintKeys()).isEmpty();
        assertThat(warnings).singleElement().asString().contains("Node bare");
    }

    @Test
    void aNodeWithoutANameMapsToNothing() {
        assertThat(mapper.map(new Node())).isEmpty();
    }
}
