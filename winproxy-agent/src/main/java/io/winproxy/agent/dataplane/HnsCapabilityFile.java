package io.winproxy.agent.dataplane;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.winproxy.agent.state.SecureFiles;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this node taught about HNS, kept in the state directory beside {@code hns-ids.txt} as {@value #FILE_NAME}:
 * the largest number of backends one load balancer accepts (learnt from a create that failed for it, probed by
 * {@code winproxy check --probe-hns}, or configured), where that came from and when, and the other results of a probe
 * (free text by name, e.g. how HNS treats a caller-chosen ID, the HRESULT of an open of an unknown ID, whether a modify
 * is honoured, whether a DSR load balancer is accepted).
 *
 * <p>Written atomically (a temporary file moved over the old one) and readable by its owner only, like the journal.
 * A file that cannot be read or parsed is reported once in the log and treated as absent: what it held is learnt
 * again.
 *
 * @param maxBackendsPerLoadBalancer the most backends one load balancer accepts; null: unknown
 * @param source     how it was learnt, e.g. {@code winproxy check --probe-hns}, {@code create failure},
 *                   {@code configured}
 * @param learntAt   when (ISO-8601 UTC), or null
 * @param probes     other probe results by name (sorted; never null)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record HnsCapabilityFile(@JsonProperty("maxBackendsPerLoadBalancer") Integer maxBackendsPerLoadBalancer,
                                @JsonProperty("source") String source,
                                @JsonProperty("learntAt") String learntAt,
                                @JsonProperty("probes") Map<String, String> probes) {
    private static final Logger logger = LoggerFactory.getLogger(HnsCapabilityFile.class);
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** The file's name in the state directory. */
    public static final String FILE_NAME = "hns-capabilities.json";

    /** Nothing learnt. */
    public static final HnsCapabilityFile NONE = new HnsCapabilityFile(null, null, null, Map.of());

    public HnsCapabilityFile {
        if (maxBackendsPerLoadBalancer != null && maxBackendsPerLoadBalancer < 1) {
            throw new IllegalArgumentException("maxBackendsPerLoadBalancer must be positive: "
                    + maxBackendsPerLoadBalancer);
        }
        probes = probes == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(probes));
    }

    /** This record with a backend limit learnt now from {@code source}, the probe results kept. */
    public HnsCapabilityFile withMaxBackends(int limit, String source, Instant at) {
        return new HnsCapabilityFile(limit, source, at.toString(), probes);
    }

    /** This record with one more probe result (replacing one of the same name). */
    public HnsCapabilityFile withProbe(String name, String result) {
        Map<String, String> m = new TreeMap<>(probes);
        m.put(name, result);
        return new HnsCapabilityFile(maxBackendsPerLoadBalancer, source, learntAt, m);
    }

    /** The file in a state directory. */
    public static Path file(Path stateDir) {
        return stateDir.resolve(FILE_NAME);
    }

    /**
     * What the state directory holds; empty when there is no such file (or no directory), or when it cannot be read
     * or parsed (logged).
     */
    public static Optional<HnsCapabilityFile> read(Path stateDir) {
        if (stateDir == null) {
            return Optional.empty();
        }
        Path file = file(stateDir);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable(MAPPER.readValue(file.toFile(), HnsCapabilityFile.class));
        } catch (IOException | IllegalArgumentException e) {
            logger.atWarn().setMessage("Ignoring what HNS showed earlier: the file cannot be read")
                    .addKeyValue("file", file).addKeyValue("err", e.getMessage()).log();
            return Optional.empty();
        }
    }

    /**
     * Replaces the state directory's file with {@code capabilities}, atomically, readable by its owner only. The
     * directory must exist.
     */
    public static void write(Path stateDir, HnsCapabilityFile capabilities) throws IOException {
        Path file = file(stateDir);
        Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
        try {
            Files.deleteIfExists(tmp);
            Files.createFile(tmp);
            SecureFiles.restrictToOwner(tmp);
            Files.write(tmp, MAPPER.writeValueAsBytes(capabilities));
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
