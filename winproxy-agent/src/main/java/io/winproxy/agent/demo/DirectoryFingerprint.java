package io.winproxy.agent.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The content of a directory's files at one moment: relative paths and SHA-256 digests, in name order. Two
 * fingerprints are equal iff no file was added, removed or changed in between. A missing directory has an empty
 * fingerprint.
 */
record DirectoryFingerprint(List<String> files) {

    static DirectoryFingerprint of(Path dir) {
        if (!Files.isDirectory(dir)) {
            return new DirectoryFingerprint(List.of());
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            return new DirectoryFingerprint(walk.filter(Files::isRegularFile).sorted()
                    .map(file -> dir.relativize(file) + " " + digest(file)).toList());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + dir, e);
        }
    }

    private static String digest(Path file) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchFileException e) {
            return "deleted";
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}
