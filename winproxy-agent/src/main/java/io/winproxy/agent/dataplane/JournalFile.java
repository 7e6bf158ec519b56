package io.winproxy.agent.dataplane;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.winproxy.agent.Messages;
import io.winproxy.agent.dataplane.OwnershipJournal.LoadBalancerEntry;
import io.winproxy.agent.dataplane.OwnershipJournal.RemoteEndpointEntry;
import io.winproxy.agent.dataplane.OwnershipJournal.Vanished;
import io.winproxy.agent.state.SecureFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The ownership journal's record format on disk: a snapshot ({@code ownership.json}, replaced atomically: temporary
 * file, force, move) and an append-only change log beside it ({@code ownership.log}, one JSON object a line). Knows
 * nothing of what the records mean ({@link OwnershipJournal} does).
 *
 * <p>Durability contract: {@link #append} returns only once the lines are forced to disk; when it fails, the log is cut
 * back to its last complete record (at once when possible, else before the next append), so a failed append never
 * leaves a torn line that later records would follow. {@link #load} replays every readable line and reports the
 * unreadable ones (a torn last line from a crash, or a line an older version left in the middle), so that the caller
 * rewrites the snapshot from what was recovered. On POSIX file systems the directory is created 0700 and the files
 * 0600.
 *
 * <p>Not thread-safe: one writer (the sync thread).
 */
final class JournalFile {
    static final String SNAPSHOT_NAME = "ownership.json";
    static final String LOG_NAME = "ownership.log";

    /**
     * The snapshot document; version 2 added fingerprints and vanished objects, then (absent when empty, so older
     * readers are unaffected) the local endpoints winproxy created: the source-VIP endpoint HNS gave an address.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Document(@JsonProperty("version") int version,
                    @JsonProperty("loadBalancers") Map<String, LoadBalancerEntry> loadBalancers,
                    @JsonProperty("remoteEndpoints") Map<String, RemoteEndpointEntry> remoteEndpoints,
                    @JsonProperty("vanished") Map<String, Vanished> vanished,
                    @JsonProperty("localEndpoints") Map<String, RemoteEndpointEntry> localEndpoints) {
    }

    /**
     * One line of the change log: a put ({@code lb}/{@code ep} with the entry, {@code gone} with the vanished
     * record) or a removal (entry null), of kind {@code lb}, {@code ep}, {@code gone} or {@code local} (an owned local
     * endpoint, its IP in {@code ep}).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Change(@JsonProperty("kind") String kind, @JsonProperty("id") String id,
                  @JsonProperty("lb") LoadBalancerEntry lb, @JsonProperty("ep") RemoteEndpointEntry ep,
                  @JsonProperty("gone") Vanished gone) {
    }

    /** What {@link #load} found wrong: an unreadable snapshot, and how many log lines could not be read. */
    record Recovery(String snapshotError, int unreadableLines, int lines) {
        boolean damaged() {
            return snapshotError != null || unreadableLines > 0;
        }
    }

    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

    private final Path snapshot;
    private final Path log;
    private final ObjectMapper mapper = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();
    private final ObjectMapper lineMapper = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();
    /** The log's length up to its last complete record, as this process knows it (-1: not known yet). */
    private long goodLength = -1;

    JournalFile(Path stateDir) {
        this.snapshot = stateDir.resolve(SNAPSHOT_NAME);
        this.log = stateDir.resolve(LOG_NAME);
    }

    Path snapshot() {
        return snapshot;
    }

    boolean snapshotExists() {
        return Files.exists(snapshot);
    }

    /** Where the snapshot's entries go, one at a time, as they are read. */
    interface Entries {
        void loadBalancer(String id, LoadBalancerEntry entry);

        void remoteEndpoint(String id, RemoteEndpointEntry entry);

        void vanished(String id, Vanished vanished);

        /** An endpoint winproxy created on the CNI's network (the source VIP HNS assigned). */
        void localEndpoint(String id, RemoteEndpointEntry entry);
    }

    /**
     * Streams the snapshot's entries into {@code into} as they are parsed (issue 27): at 100,000 remote endpoints a
     * whole {@link Document} would be a second copy of the journal on the heap while it is restored. A snapshot damaged
     * part way keeps the entries read before the damage (each one whole) and throws.
     */
    private void readSnapshot(Entries into) throws IOException {
        try (JsonParser p = mapper.createParser(snapshot.toFile())) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("the snapshot is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "loadBalancers" -> readEntries(p, LoadBalancerEntry.class, into::loadBalancer);
                    case "remoteEndpoints" -> readEntries(p, RemoteEndpointEntry.class, into::remoteEndpoint);
                    case "vanished" -> readEntries(p, Vanished.class, into::vanished);
                    case "localEndpoints" -> readEntries(p, RemoteEndpointEntry.class, into::localEndpoint);
                    default -> p.skipChildren();
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT) {
                throw new IOException("the snapshot ends before its closing brace");
            }
        }
    }

    private <T> void readEntries(JsonParser p, Class<T> type, BiConsumer<String, T> into) throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return;
        }
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw new IOException("expected an object of entries at " + p.currentName());
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String id = p.currentName();
            p.nextToken();
            into.accept(id, mapper.readValue(p, type));
        }
    }

    /**
     * Reads the snapshot (when it exists) into {@code document}, then replays every readable log line into
     * {@code changes}. Never throws: what cannot be read is reported in the {@link Recovery}.
     */
    Recovery load(Entries document, Consumer<Change> changes) {
        String snapshotError = null;
        if (Files.isRegularFile(snapshot)) {
            try {
                readSnapshot(document);
            } catch (IOException e) {
                snapshotError = Messages.firstLine(e.getMessage(), e.getClass().getSimpleName());
            }
        }
        int unreadable = 0;
        int lines = 0;
        if (Files.isRegularFile(log)) {
            try (BufferedReader reader = Files.newBufferedReader(log, StandardCharsets.UTF_8)) {
                String line;
                while ((line = reader.readLine()) != null) {
                    if (line.isBlank()) {
                        continue;
                    }
                    try {
                        changes.accept(lineMapper.readValue(line, Change.class));
                        lines++;
                    } catch (IOException e) {
                        unreadable++;
                    }
                }
            } catch (IOException e) {
                snapshotError = snapshotError != null ? snapshotError : "log: " + Messages.firstLine(e.getMessage(), e.getClass().getSimpleName());
            }
        }
        return new Recovery(snapshotError, unreadable, lines);
    }

    /**
     * Appends the changes to the log and forces them to disk. On failure the log is cut back to its last complete
     * record before the exception is thrown (or, when even that fails, before the next append).
     */
    void append(List<Change> changes) throws IOException {
        StringBuilder text = new StringBuilder();
        for (Change change : changes) {
            text.append(lineMapper.writeValueAsString(change)).append('\n');
        }
        createDirectory();
        boolean created = !Files.exists(log);
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            if (created) {
                restrict(log);
            }
            long size = ch.size();
            if (goodLength >= 0 && size > goodLength) {
                // An earlier append failed part-way and could not be cut back then.
                ch.truncate(goodLength);
                size = goodLength;
            }
            try {
                ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
                long at = size;
                while (bytes.hasRemaining()) {
                    at += ch.write(bytes, at);
                }
                ch.force(false);
                goodLength = at;
            } catch (IOException e) {
                goodLength = size;
                try {
                    ch.truncate(size);
                } catch (IOException ignored) {
                    // cut back before the next append
                }
                throw e;
            }
        }
    }

    /** Writes a new snapshot atomically, then removes the log (a crash in between replays the log harmlessly). */
    void compact(Document document) throws IOException {
        createDirectory();
        Path tmp = snapshot.resolveSibling(SNAPSHOT_NAME + ".tmp");
        try {
            Files.deleteIfExists(tmp);
            Files.createFile(tmp);
            restrict(tmp);
            mapper.writeValue(tmp.toFile(), document);
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            SecureFiles.replace(tmp, snapshot);
        } finally {
            Files.deleteIfExists(tmp);
        }
        Files.deleteIfExists(log);
        goodLength = 0;
    }

    private void createDirectory() throws IOException {
        Path dir = snapshot.getParent();
        if (Files.isDirectory(dir)) {
            return;
        }
        if (POSIX) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
        } else {
            Files.createDirectories(dir);
        }
    }

    private static void restrict(Path file) throws IOException {
        if (POSIX) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
    }
}
