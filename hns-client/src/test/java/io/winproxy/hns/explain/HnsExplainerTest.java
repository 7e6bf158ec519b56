package io.winproxy.hns.explain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.Golden;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code hns explain} on realistic documents of each kind and on bad input. */
class HnsExplainerTest {
    private final HnsExplainer explainer = new HnsExplainer();
    private final Golden golden = new Golden();

    /** The explanation of the golden file {@code file}. */
    private Explanation explainGolden(String file) {
        return explainer.explain(golden.text(file));
    }

    @Test
    void dsrIpv6LoadBalancerIsExplainedWithFlagsByName() {
        String name = "explain/dsrIpv6LoadBalancerIsExplainedWithFlagsByName";
        Explanation e = explainGolden(name + ".json");

        assertThat(e.kind()).isEqualTo("load-balancer");
        assertThat(e.text()).contains("[fd00:10:96::a]:443/TCP").contains("DSR|IPv6")
                .contains("LocalRoutedVIP|VipExternalIP").contains("SourceIP")
                .contains("8d4c2a10-3b5e-4f67-9a81-b2c3d4e5f607");
        golden.assertMatches(name + ".expected.json", e.json());
    }

    @Test
    void v2LoadBalancerAsHnsReturnsItIsALoadBalancer() {
        Explanation e = explainGolden("loadBalancerFromHnsDecodesAndReencodesWithoutServerMembers.json");

        assertThat(e.kind()).isEqualTo("load-balancer");
        assertThat(e.text()).contains("10.96.0.10:53/UDP").contains("Flags:             -")
                .contains("Distribution:      None");
        assertThat(e.json().get("protocol").asText()).isEqualTo("UDP");
    }

    @Test
    void policyListsFromGetHnsPolicyListAreExplainedAsLoadBalancers() {
        Explanation e = explainGolden("v1PolicyListFromPowerShellDecodesElbPolicy.json");

        assertThat(e.kind()).isEqualTo("list");
        assertThat(e.json().get("items")).hasSize(2);
        assertThat(e.json().get("items").get(0).get("kind").asText()).isEqualTo("policy-list");
        assertThat(e.json().get("items").get(0).get("portMappingFlags").get(0).asText()).isEqualTo("ILB");
        assertThat(e.json().get("items").get(1).get("flags").get(0).asText()).isEqualTo("DSR");
        assertThat(e.text()).contains("v1 policy list (ELB) 7b2cd4a9-3f1e-4c47-9e0b-2d9a51c6f013")
                .contains("*:30080/TCP");
    }

    @Test
    void localizedErrorRecordIsClassifiedByCodeNotMessage() {
        Explanation e = explainGolden("explain/localizedErrorRecordIsClassifiedByCodeNotMessage.json");

        assertThat(e.kind()).isEqualTo("error-record");
        assertThat(e.text()).contains("0x803B001C HCN_E_INVALID_JSON_REFERENCE").contains("需要引用")
                .contains("names no endpoint");
        assertThat(e.json().get("hresult").asText()).isEqualTo("0x803B001C");
        assertThat(e.json().get("name").asText()).isEqualTo("HCN_E_INVALID_JSON_REFERENCE");
    }

    @Test
    void kubeProxyLogLineWithSwitchPortNotFoundIsExplained() {
        Explanation e = explainer.explain(golden.text("explain/kubeProxyLogLineWithSwitchPortNotFoundIsExplained.txt")
                .replace("\\\"", "\""));

        assertThat(e.kind()).isEqualTo("error-record");
        assertThat(e.text()).contains("0x803B0007 HCN_E_PORT_NOT_FOUND");
    }

    @Test
    void remoteEndpointIsExplainedWithItsProviderAddress() {
        Explanation e = explainGolden("remoteEndpointDecodesFlagsAndProviderAddress.json");

        assertThat(e.kind()).isEqualTo("endpoint");
        assertThat(e.text()).contains("remote").contains("192.168.10.22").contains("RemoteEndpoint");
        assertThat(e.json().get("remote").asBoolean()).isTrue();
        assertThat(e.json().get("providerAddress").asText()).isEqualTo("192.168.10.22");
    }

    @Test
    void v1EndpointFromGetHnsEndpointIsExplained() {
        Explanation e = explainGolden("v1EndpointFromPowerShellDecodesRemoteFlagAndPa.json");

        assertThat(e.kind()).isEqualTo("v1-endpoint");
        assertThat(e.text()).contains("10.244.2.17").contains("remote").contains("Created");
        assertThat(e.json().get("providerAddress").asText()).isEqualTo("192.168.10.22");
    }

    @Test
    void overlayNetworkIsExplainedWithItsRemoteSubnets() {
        Explanation e = explainGolden("overlayNetworkDecodesTypedPolicies.json");

        assertThat(e.kind()).isEqualTo("network");
        assertThat(e.text()).contains("Overlay").contains("10.244.2.0/24 via 192.168.10.22 (VSID 4096)");
        assertThat(e.json().get("remoteSubnets")).hasSize(2);
    }

    @Test
    void v1NetworkIsExplained() {
        Explanation e = explainGolden("v1NetworkDecodesSubnetsAndRemoteSubnetRoutes.json");

        assertThat(e.kind()).isEqualTo("v1-network");
        assertThat(e.text()).contains("vxlan0").contains("10.244.1.0/24").contains("192.168.10.21");
    }

    @Test
    void powerShellNetworkListWithValueWrapperIsExplained() {
        Explanation e = explainer.explain("\uFEFFPS C:\\> Get-HnsNetwork | ConvertTo-Json\n"
                + golden.text("explain/powerShellNetworkListWithValueWrapperIsExplained.json"));

        assertThat(e.kind()).isEqualTo("v1-network");
        assertThat(e.text()).contains("NAT").contains("172.28.112.0/20").contains("ConvertTo-Json with -Depth 10");
        assertThat(e.json().get("warnings")).hasSize(1);
    }

    @Test
    void defaultDepthPolicyListIsRebuiltFromPowerShellStrings() {
        Explanation e = explainGolden("explain/defaultDepthPolicyListIsRebuiltFromPowerShellStrings.json");

        assertThat(e.kind()).isEqualTo("policy-list");
        assertThat(e.json().get("externalPort").asInt()).isEqualTo(53);
        assertThat(e.json().get("protocol").asText()).isEqualTo("UDP");
        assertThat(e.json().get("portMappingFlags").get(0).asText()).isEqualTo("ILB");
        assertThat(e.json().get("backendEndpoints")).hasSize(2);
        assertThat(e.text()).contains("System.Object[]:53/UDP").contains("-Depth 10");
    }

    @Test
    void hnsCallEnvelopesAreUnwrapped() {
        Explanation version = explainGolden("hnsCallEnvelopeDecodesOutput.json");
        Explanation lists = explainer.explain("{\"Success\":true,\"Output\":"
                + golden.text("v1PolicyListFromPowerShellDecodesElbPolicy.json") + "}");
        Explanation failed = explainer.explain("{\"Success\":false,\"Error\":\"Element not found.\",\"Output\":null}");

        assertThat(version.kind()).isEqualTo("hns-call");
        assertThat(version.text()).contains("HNS version 13.3").contains("SessionAffinity")
                .doesNotContain("ModifyLoadbalancer");
        assertThat(lists.json().get("output").get("items")).hasSize(2);
        assertThat(failed.text()).contains("failure").contains("Element not found.");
    }

    @Test
    void queryDocumentsShowTheirDoubleEncodedFilter() {
        Explanation e = explainer.explain("{\"SchemaVersion\":{\"Major\":2,\"Minor\":0},\"Flags\":1,"
                + "\"Filter\":\"{\\\"VirtualNetwork\\\":\\\"1f6f3c2a-9b7d-4e55-8c21-6a0e4d9b3f70\\\"}\"}");

        assertThat(e.kind()).isEqualTo("query");
        assertThat(e.text()).contains("VirtualNetwork = 1f6f3c2a-9b7d-4e55-8c21-6a0e4d9b3f70").contains("detailed");
        assertThat(e.json().get("filter").get("VirtualNetwork").asText())
                .isEqualTo("1f6f3c2a-9b7d-4e55-8c21-6a0e4d9b3f70");
        assertThatThrownBy(() -> explainer.explain("{\"Filter\":\"{oops\"}"))
                .hasMessageStartingWith("cannot read query: query Filter is not JSON");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "hello", "{\"ID\": ", "[]", "42", "{\"Foo\":1,\"Bar\":2}",
        "{\"PortMappings\":[{\"Protocol\":\"tcp-ish\"}]}", "[{\"HostComputeEndpoints\":[\"a\"]}, true]"})
    void badInputIsRefusedWithAOneLineMessage(String input) {
        assertThatThrownBy(() -> explainer.explain(input)).isInstanceOf(IllegalArgumentException.class)
                .satisfies(t -> assertThat(t.getMessage()).isNotBlank().doesNotContain("\n")
                        .doesNotContain("com.fasterxml").doesNotContain("Exception"));
    }

    @Test
    void unknownDocumentsNameTheirMembers() {
        assertThatThrownBy(() -> explainer.explain("{\"Foo\":1,\"Bar\":2}"))
                .hasMessageStartingWith("not a recognised HNS document (members: Bar, Foo)");
        assertThatThrownBy(() -> explainer.explain("{\"PortMappings\":[{\"Protocol\":\"tcp-ish\"}]}"))
                .hasMessageContaining("PortMappings.[0].Protocol");
    }

    @Test
    void v1OverlayNetworkFromGetHnsNetworkShowsItsDrMacAndRemoteSubnets() {
        Explanation e = explainGolden("explain/v1OverlayNetworkFromGetHnsNetworkShowsItsDrMac.json");

        assertThat(e.kind()).isEqualTo("v1-network");
        assertThat(e.text()).contains("DR MAC:            00-15-5D-3A-2B-1C")
                .contains("10.244.1.0/24 via 192.168.1.21 (VSID 4096)").contains("Subnets:           10.244.2.0/24");
        assertThat(e.json().get("drMacAddress").asText()).isEqualTo("00-15-5D-3A-2B-1C");
    }

    @Test
    void truncatedJsonIsReportedWithoutParserInternals() {
        assertThatThrownBy(() -> explainer.explain("{\"Id\": \"x\", \"PortMappings\": \"oops\"\n"))
                .hasMessageStartingWith("not valid JSON at line")
                .satisfies(t -> assertThat(t.getMessage()).doesNotContain("[Source").doesNotContain("start marker"));
    }
}
