package io.winproxy.agent.kube;

import io.fabric8.kubernetes.client.OAuthTokenProvider;
import io.winproxy.agent.Messages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bearer token read from a file and read again as the file changes, for a kubeconfig's {@code tokenFile}: kubelet
 * rotates projected service-account tokens (they expire after an hour or so) by replacing the file, and every request
 * must carry the current one. fabric8 asks for the token on every request and again after a 401.
 *
 * <p>As client-go's cached file token source: the file is read again when it looks changed (modification time, size
 * or file key, following the symbolic links kubelet swaps) and at least once a minute; a read that fails or finds the
 * file empty keeps the last good token and logs a warning (once per failure streak), so a rotation caught half-way
 * costs nothing. The token itself is never logged.
 */
final class FileTokenProvider implements OAuthTokenProvider {
    private static final Logger logger = LoggerFactory.getLogger(FileTokenProvider.class);

    /** The longest a token is used without reading the file again (client-go's period for token files). */
    static final Duration MAX_AGE = Duration.ofMinutes(1);

    private record Stamp(FileTime modified, long size, Object fileKey) {
    }

    private final Path path;
    private final LongSupplier nanoTime;
    private String token;
    private Stamp stamp;
    private long readAtNanos;
    private boolean failing;

    /**
     * @param path     the token file; it is read here once
     * @param nanoTime the clock that ages a token ({@link System#nanoTime} outside tests)
     * @throws IOException when the file cannot be read or holds no token
     */
    FileTokenProvider(Path path, LongSupplier nanoTime) throws IOException {
        this.path = path;
        this.nanoTime = nanoTime;
        this.stamp = stamp(path);
        this.token = readToken(path);
        this.readAtNanos = nanoTime.getAsLong();
    }

    /** The token in {@code path}, trimmed. @throws IOException when unreadable or empty */
    static String readToken(Path path) throws IOException {
        String text = Files.readString(path, StandardCharsets.UTF_8).strip();
        if (text.isEmpty()) {
            throw new IOException("the file holds no token");
        }
        return text;
    }

    @Override
    public synchronized String getToken() {
        long now = nanoTime.getAsLong();
        Stamp current;
        try {
            current = stamp(path);
        } catch (IOException e) {
            current = null;
        }
        if (current != null && current.equals(stamp) && now - readAtNanos < MAX_AGE.toNanos()) {
            return token;
        }
        try {
            String read = readToken(path);
            token = read;
            stamp = current;
            readAtNanos = now;
            if (failing) {
                failing = false;
                logger.atInfo().setMessage("Token file readable again").addKeyValue("path", path).log();
            }
        } catch (IOException e) {
            if (!failing) {
                failing = true;
                logger.atWarn().setMessage("Cannot read the kubeconfig's token file; using the last token read")
                        .addKeyValue("path", path)
                        .addKeyValue("err", Messages.firstLine(e.getMessage(), e.getClass().getSimpleName())).log();
            }
        }
        return token;
    }

    private static Stamp stamp(Path path) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
        return new Stamp(attributes.lastModifiedTime(), attributes.size(), attributes.fileKey());
    }

    @Override
    public String toString() {
        return "token file " + Objects.toString(path);
    }
}
