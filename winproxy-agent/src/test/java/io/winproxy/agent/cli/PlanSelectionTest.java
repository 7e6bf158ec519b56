package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code plan --manifests} selects Services and EndpointSlices exactly as the agent's informers do: the
 * {@code service.kubernetes.io/service-proxy-name} label against {@code serviceProxyName}, and headless slices.
 */
class PlanSelectionTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path dir;

    @BeforeEach
    void manifests() throws IOException {
        try (Stream<Path> files = Files.list(SyncCluster.dir())) {
            for (Path f : files.toList()) {
                Files.copy(f, dir.resolve(f.getFileName()));
            }
        }
        Files.writeString(dir.resolve("other.yaml"), """
                apiVersion: v1
                kind: Service
                metadata:
                  name: other
                  namespace: default
                  labels:
                    service.kubernetes.io/service-proxy-name: other-proxy
                spec:
                  type: ClusterIP
                  clusterIP: 10.96.0.99
                  clusterIPs: [10.96.0.99]
                  ipFamilies: [IPv4]
                  ports:
                  - {name: http, protocol: TCP, port: 80, targetPort: 8080}
                ---
                apiVersion: discovery.k8s.io/v1
                kind: EndpointSlice
                metadata:
                  name: other-1
                  namespace: default
                  labels:
                    kubernetes.io/service-name: other
                    service.kubernetes.io/service-proxy-name: other-proxy
                addressType: IPv4
                ports:
                - {name: http, protocol: TCP, port: 8080}
                endpoints:
                - addresses: [10.244.1.5]
                  nodeName: win-a
                  conditions: {ready: true}
                """);
    }

    private Set<String> plannedServices(String... extra) throws IOException {
        String[] args = Stream.concat(Stream.of("plan", "--manifests", dir.toString(), "--hostname-override=win-a",
                "-o", "json"), Stream.of(extra)).toArray(String[]::new);
        CliRunner.Result r = CliRunner.run(args);
        assertThat(r.exitCode()).as(r.err()).isZero();
        JsonNode plan = MAPPER.readTree(r.out());
        Set<String> services = new TreeSet<>();
        plan.get("loadBalancers").forEach(lb -> services.add(lb.get("service").asText()));
        return services;
    }

    @Test
    void aServiceLabelledForAnotherProxyIsNotPlanned() throws IOException {
        assertThat(plannedServices()).isNotEmpty().doesNotContain("default/other");
    }

    @Test
    void theConfigFilesServiceProxyNamePlansOnlyTheServicesLabelledWithIt() throws IOException {
        Path config = dir.getParent().resolve(dir.getFileName() + "-config.yaml");
        Files.writeString(config, """
                apiVersion: kubeproxy.config.k8s.io/v1alpha1
                kind: KubeProxyConfiguration
                mode: kernelspace
                serviceProxyName: other-proxy
                """);
        assertThat(plannedServices("--config", config.toString())).containsExactly("default/other");
    }
}
