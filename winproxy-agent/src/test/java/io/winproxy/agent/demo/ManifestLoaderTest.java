package io.winproxy.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestLoaderTest {
    private final ManifestLoader loader = new ManifestLoader();

    @TempDir
    Path dir;

    private void write(String name, String content) throws IOException {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    @Test
    void multiDocumentYamlYieldsTypedNodesServicesAndSlices() throws IOException {
        write("all.yaml", """
                apiVersion: v1
                kind: Node
                metadata:
                  name: n1
                ---
                apiVersion: v1
                kind: Service
                metadata:
                  name: web
                spec:
                  clusterIP: 10.96.0.20
                  ports:
                    - port: 80
                ---
                apiVersion: discovery.k8s.io/v1
                kind: EndpointSlice
                metadata:
                  name: web-1
                  namespace: apps
                addressType: IPv4
                """);

        ManifestSet set = loader.load(dir);

        assertThat(set.nodes()).extracting(n -> n.getMetadata().getName()).containsExactly("n1");
        assertThat(set.services()).singleElement().satisfies(s -> {
            assertThat(s.getMetadata().getNamespace()).isEqualTo("default");
            assertThat(s.getSpec().getClusterIP()).isEqualTo("10.96.0.20");
        });
        assertThat(set.endpointSlices()).extracting(s -> s.getMetadata().getNamespace()).containsExactly("apps");
        assertThat(set.problems()).isEmpty();
        assertThat(set.complete()).isTrue();
    }

    @Test
    void aKindListAndJsonFilesInSubdirectoriesAreRead() throws IOException {
        write("sub/list.json", """
                {"apiVersion": "v1", "kind": "List", "items": [
                  {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "x"}},
                  {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}}
                ]}
                """);

        ManifestSet set = loader.load(dir);

        assertThat(set.services()).extracting(s -> s.getMetadata().getName()).containsExactly("a");
        assertThat(set.nodes()).extracting(n -> n.getMetadata().getName()).containsExactly("n2");
    }

    @Test
    void otherKindsAreIgnoredWithAWarningNamingTheFileAndLine() throws IOException {
        write("mixed.yaml", """
                apiVersion: v1
                kind: Node
                metadata:
                  name: n1
                ---
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                """);

        ManifestSet set = loader.load(dir);

        assertThat(set.nodes()).hasSize(1);
        assertThat(set.complete()).isTrue();
        assertThat(set.problems()).singleElement().satisfies(p -> {
            assertThat(p.fatal()).isFalse();
            assertThat(p.line()).isEqualTo(6);
            assertThat(p.toString()).startsWith(dir.resolve("mixed.yaml") + ":6: ").contains("Deployment");
        });
    }

    @Test
    void aSyntaxErrorNamesFileAndLineAndLosesNoOtherFile() throws IOException {
        write("a-good.yaml", """
                apiVersion: v1
                kind: Service
                metadata:
                  name: good
                """);
        write("b-bad.yaml", """
                apiVersion: v1
                kind: Service
                metadata:
                  name: bad
                spec:
                  ports: [ {port: 80
                """);

        ManifestSet set = loader.load(dir);

        assertThat(set.services()).extracting(s -> s.getMetadata().getName()).containsExactly("good");
        assertThat(set.failedFiles()).containsExactly(dir.resolve("b-bad.yaml"));
        assertThat(set.problems()).singleElement().satisfies(p -> {
            assertThat(p.fatal()).isTrue();
            assertThat(p.line()).isPositive();
            assertThat(p.toString()).doesNotContain("\n").startsWith(dir.resolve("b-bad.yaml") + ":");
        });
    }

    @Test
    void aFileWithAnUnreadableObjectContributesNothing() throws IOException {
        write("svc.yaml", """
                apiVersion: v1
                kind: Service
                metadata:
                  name: first
                ---
                apiVersion: v1
                kind: Service
                metadata:
                  name: second
                spec:
                  ports: "not a list"
                """);

        ManifestSet set = loader.load(dir);

        assertThat(set.services()).isEmpty();
        assertThat(set.problems()).singleElement().satisfies(p -> {
            assertThat(p.fatal()).isTrue();
            assertThat(p.line()).isEqualTo(6);
            assertThat(p.message()).startsWith("invalid Service");
        });
    }

    @Test
    void anObjectWithoutANameIsAnError() throws IOException {
        write("noname.yaml", """
                apiVersion: v1
                kind: Node
                metadata:
                  labels: {a: b}
                """);

        ManifestSet set = loader.load(dir);

        assertThat(set.nodes()).isEmpty();
        assertThat(set.problems()).singleElement().asString().contains("Node without metadata.name");
    }

    @Test
    void hiddenFilesAndOtherExtensionsAreSkipped() throws IOException {
        write(".web.yaml.swp", "garbage: [");
        write("notes.txt", "not yaml: [");
        write("empty.yaml", "");

        ManifestSet set = loader.load(dir);

        assertThat(set.all()).isEmpty();
        assertThat(set.problems()).isEmpty();
    }

    @Test
    void aLaterFileWinsForTheSameObjectWithAWarning() throws IOException {
        write("a.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {clusterIP: 10.96.0.1}\n");
        write("b.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {clusterIP: 10.96.0.2}\n");

        ManifestSet set = loader.load(dir);

        assertThat(set.services()).singleElement()
                .satisfies(s -> assertThat(s.getSpec().getClusterIP()).isEqualTo("10.96.0.2"));
        assertThat(set.problems()).singleElement().asString().contains("also defined in");
    }

    @Test
    void aMissingDirectoryIsAOneLineError() {
        assertThatThrownBy(() -> loader.load(dir.resolve("nope")))
                .isInstanceOf(DemoException.class).hasMessageContaining("nope").hasMessageNotContaining("\n");
    }
}
