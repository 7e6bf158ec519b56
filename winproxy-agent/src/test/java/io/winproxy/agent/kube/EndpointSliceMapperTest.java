package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.winproxy.policy.model.EndpointSliceInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EndpointSliceMapperTest {
    private final List<String> warnings = new ArrayList<>();
    private final EndpointSliceMapper mapper = new EndpointSliceMapper(warnings::add);

    private static EndpointSliceBuilder slice(String triggerTime) {
        return new EndpointSliceBuilder()
                .withNewMetadata().withNamespace("default").withName("web-abc")
                .withLabels(Map.of("kubernetes.io/service-name", "web"))
                .withAnnotations(triggerTime == null ? Map.of()
                        : Map.of("endpoints.kubernetes.io/last-change-trigger-time", triggerTime))
                .endMetadata()
                .withAddressType("IPv4");
    }

    @Test
    void aSliceMapsPortsEndpointsConditionsHintsAndTriggerTime() {
        EndpointSlice slice = slice("2026-01-15T10:02:11Z")
                .addNewPort().withName("http").withProtocol("TCP").withPort(8080).endPort()
                .addNewEndpoint().withAddresses("10.244.1.10").withNewConditions(true, true, false)
                .withNodeName("win-node-1").withZone("zone-a")
                .withNewHints().addNewForZone("zone-a").addNewForNode("win-node-1").endHints().endEndpoint()
                .build();

        EndpointSliceInfo info = mapper.map(slice).orElseThrow();

        assertThat(info).isEqualTo(new EndpointSliceInfo("default", "web-abc", "web", "IPv4",
                List.of(new EndpointSliceInfo.SlicePort("http", "TCP", 8080)),
                List.of(new EndpointSliceInfo.SliceEndpoint(List.of("10.244.1.10"), true, true, false,
                        "win-node-1", "zone-a", List.of("zone-a"), List.of("win-node-1"))),
                Instant.parse("2026-01-15T10:02:11Z")));
        assertThat(warnings).isEmpty();
    }

    @Test
    void absentConditionsStayNullAsTheApiMeansThem() {
        EndpointSlice slice = slice(null).addNewEndpoint().withAddresses("10.244.2.10").endEndpoint()
                .addNewEndpoint().withAddresses("10.244.2.11").withNewConditions().withServing(true).endConditions()
                .endEndpoint().build();

        List<EndpointSliceInfo.SliceEndpoint> endpoints = mapper.map(slice).orElseThrow().endpoints();

        assertThat(endpoints.get(0).ready()).isNull();
        assertThat(endpoints.get(0).serving()).isNull();
        assertThat(endpoints.get(0).terminating()).isNull();
        assertThat(endpoints.get(1).ready()).isNull();
        assertThat(endpoints.get(1).serving()).isTrue();
        assertThat(mapper.map(slice).orElseThrow().lastChangeTriggerTime()).isNull();
    }

    @Test
    void aTriggerTimeWithAnOffsetIsConvertedToAnInstant() {
        EndpointSliceInfo info = mapper.map(slice("2026-01-15T11:02:11.5+01:00").build()).orElseThrow();

        assertThat(info.lastChangeTriggerTime()).isEqualTo(Instant.parse("2026-01-15T10:02:11.500Z"));
    }

    @Test
    void anUnparsableTriggerTimeIsDroppedWithAWarningNamingTheSlice() {
        EndpointSlice slice = slice("yesterday").addNewEndpoint().withAddresses("10.244.1.10").endEndpoint().build();

        EndpointSliceInfo info = mapper.map(slice).orElseThrow();

        assertThat(info.lastChangeTriggerTime()).isNull();
        assertThat(info.endpoints()).hasSize(1);
        assertThat(warnings).singleElement().asString()
                .contains("EndpointSlice default/web-abc").contains("yesterday");
    }

    @Test
    void anEndpointWithoutAddressesIsDroppedWithAWarning() {
        EndpointSlice slice = slice(null).addNewEndpoint().withNodeName("n").endEndpoint()
                .addNewEndpoint().withAddresses("10.0.0.1").endEndpoint().build();

        EndpointSliceInfo info = mapper.map(slice).orElseThrow();

        assertThat(info.endpoints()).extracting(e -> e.addresses().get(0)).containsExactly("10.0.0.1");
        assertThat(warnings).singleElement().asString().contains("EndpointSlice default/web-abc")
                .contains("endpoints[0]");
    }

    @Test
    void aSliceWithoutTheServiceNameLabelMapsWithANullServiceName() {
        EndpointSlice slice = new EndpointSliceBuilder().withNewMetadata().withNamespace("default")
                .withName("custom").endMetadata().withAddressType("IPv4").build();

        EndpointSliceInfo info = mapper.map(slice).orElseThrow();

        assertThat(info.serviceName()).isNull();
        assertThat(info.ports()).isEmpty();
        assertThat(info.endpoints()).isEmpty();
    }

    @Test
    void aPortWithoutANumberKeepsItsNullMeaningAllPorts() {
        EndpointSlice slice = slice(null).addNewPort().withName("any").endPort().build();

        assertThat(mapper.map(slice).orElseThrow().ports())
                .containsExactly(new EndpointSliceInfo.SlicePort("any", null, null));
    }

    @Test
    void aSliceWithoutANameMapsToNothing() {
        assertThat(mapper.map(new EndpointSlice())).isEmpty();
        assertThat(warnings).hasSize(1);
    }
}
