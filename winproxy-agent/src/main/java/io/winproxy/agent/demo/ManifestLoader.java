package io.winproxy.agent.demo;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Reads a directory of Kubernetes manifests: {@code *.yaml}, {@code *.yml} and {@code *.json} files, searched
 * recursively in name order, hidden files skipped. A file may hold several YAML documents and {@code kind: List}
 * objects. Nodes, v1 Services and {@code discovery.k8s.io/v1} EndpointSlices are kept; other kinds are ignored with
 * a warning naming the file. A file with a syntax error or an object that cannot be read is reported with its file
 * and line and contributes nothing; the other files are unaffected. When the same object appears twice, the later
 * file wins (with a warning). Stateless and thread-safe.
 */
public final class ManifestLoader {
    private final ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    private final KubernetesSerialization serialization = new KubernetesSerialization();

    /**
     * @throws DemoException when {@code dir} is not a readable directory
     */
    public ManifestSet load(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new DemoException("manifests directory " + dir + " does not exist or is not a directory");
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files = walk.filter(ManifestLoader::isManifest).filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new DemoException("cannot list manifests directory " + dir + ": " + e.getMessage(), e);
        }
        Map<String, HasMetadata> objects = new LinkedHashMap<>();
        Map<String, Path> origin = new LinkedHashMap<>();
        List<ManifestProblem> problems = new ArrayList<>();
        Set<Path> failed = new HashSet<>();
        for (Path file : files) {
            FileResult result = loadFile(file);
            problems.addAll(result.problems());
            if (result.problems().stream().anyMatch(ManifestProblem::fatal)) {
                failed.add(file);
                continue;
            }
            for (HasMetadata object : result.objects()) {
                String key = identity(object);
                Path earlier = origin.put(key, file);
                if (earlier != null) {
                    problems.add(new ManifestProblem(file, 0, identity(object) + " is also defined in " + earlier
                            + "; this file wins", false));
                }
                objects.remove(key);
                objects.put(key, object);
            }
        }
        List<Node> nodes = new ArrayList<>();
        List<Service> services = new ArrayList<>();
        List<EndpointSlice> slices = new ArrayList<>();
        for (HasMetadata object : objects.values()) {
            if (object instanceof Node n) {
                nodes.add(n);
            } else if (object instanceof Service s) {
                services.add(s);
            } else if (object instanceof EndpointSlice e) {
                slices.add(e);
            }
        }
        return new ManifestSet(nodes, services, slices, problems, failed);
    }

    /** The objects and problems of one file. Objects are meaningless when a problem is fatal. */
    public record FileResult(List<HasMetadata> objects, List<ManifestProblem> problems) {
    }

    /** Reads one file. Never throws: I/O and syntax errors become fatal problems. */
    public FileResult loadFile(Path file) {
        List<HasMetadata> objects = new ArrayList<>();
        List<ManifestProblem> problems = new ArrayList<>();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
             MappingIterator<JsonNode> docs = yaml.readerFor(JsonNode.class).readValues(reader)) {
            while (docs.hasNextValue()) {
                // hasNextValue() has advanced to the document's first token: its line is where the object starts
                int line = docs.getParser().currentTokenLocation().getLineNr();
                JsonNode doc = docs.nextValue();
                if (doc == null || doc.isNull() || doc.isMissingNode()) {
                    continue;
                }
                readDocument(file, line, doc, objects, problems);
            }
        } catch (JsonProcessingException e) {
            JsonLocation where = e.getLocation();
            problems.add(new ManifestProblem(file, where == null ? 0 : where.getLineNr(),
                    "not valid YAML/JSON: " + e.getOriginalMessage().lines().findFirst().orElse(""), true));
        } catch (IOException | RuntimeException e) {
            problems.add(new ManifestProblem(file, 0, "cannot read: " + e.getMessage(), true));
        }
        return new FileResult(objects, problems);
    }

    private void readDocument(Path file, int line, JsonNode doc, List<HasMetadata> objects,
                              List<ManifestProblem> problems) {
        if (!doc.isObject()) {
            problems.add(new ManifestProblem(file, line, "document is not an object", true));
            return;
        }
        String kind = doc.path("kind").asText("");
        String apiVersion = doc.path("apiVersion").asText("");
        if (kind.endsWith("List") && doc.has("items")) {
            for (JsonNode item : doc.path("items")) {
                readDocument(file, line, item, objects, problems);
            }
            return;
        }
        Class<? extends HasMetadata> type = typeOf(kind, apiVersion);
        if (type == null) {
            problems.add(new ManifestProblem(file, line, "ignoring " + (kind.isEmpty() ? "an object without kind"
                    : "kind " + kind + " (" + apiVersion + ")") + "; only Node, Service and "
                    + "discovery.k8s.io/v1 EndpointSlice are used", false));
            return;
        }
        HasMetadata object;
        try {
            object = serialization.convertValue(doc, type);
        } catch (IllegalArgumentException e) {
            problems.add(new ManifestProblem(file, line, "invalid " + kind + ": "
                    + String.valueOf(e.getMessage()).lines().findFirst().orElse(""), true));
            return;
        }
        if (object.getMetadata() == null || object.getMetadata().getName() == null
                || object.getMetadata().getName().isBlank()) {
            problems.add(new ManifestProblem(file, line, kind + " without metadata.name", true));
            return;
        }
        if (type != Node.class && object.getMetadata().getNamespace() == null) {
            object.getMetadata().setNamespace("default");
        }
        objects.add(object);
    }

    private static Class<? extends HasMetadata> typeOf(String kind, String apiVersion) {
        return switch (kind) {
            case "Node" -> "v1".equals(apiVersion) ? Node.class : null;
            case "Service" -> "v1".equals(apiVersion) ? Service.class : null;
            case "EndpointSlice" -> "discovery.k8s.io/v1".equals(apiVersion) ? EndpointSlice.class : null;
            default -> null;
        };
    }

    private static boolean isManifest(Path path) {
        String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
        return !name.startsWith(".") && (name.endsWith(".yaml") || name.endsWith(".yml") || name.endsWith(".json"));
    }

    /** "Kind namespace/name" (no namespace for Nodes): the identity ManifestSync matches objects by. */
    static String identity(HasMetadata object) {
        String namespace = object.getMetadata().getNamespace();
        return object.getKind() + " " + (namespace == null ? "" : namespace + "/") + object.getMetadata().getName();
    }
}
