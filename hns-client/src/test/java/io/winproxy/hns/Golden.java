package io.winproxy.hns;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Golden documents under {@code src/test/resources/golden/}, named after the test that uses them, compared as JSON
 * trees (member order and whitespace do not matter; values and types do).
 */
public final class Golden {
    private final ObjectMapper mapper = new ObjectMapper();

    /** The raw text of {@code golden/<name>}. */
    public String text(String name) {
        try (InputStream in = Golden.class.getResourceAsStream("/golden/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing golden file golden/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public JsonNode tree(String name) {
        try {
            return mapper.readTree(text(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Asserts that {@code actualJson} equals {@code golden/<name>} as a JSON tree. */
    public void assertMatches(String name, String actualJson) {
        try {
            assertMatches(name, mapper.readTree(actualJson));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void assertMatches(String name, JsonNode actual) {
        JsonNode expected = tree(name);
        if (!expected.equals(actual)) {
            // Show both sides in full: the pretty forms make the differing member easy to spot.
            assertThat(actual.toPrettyString()).as("golden/" + name).isEqualTo(expected.toPrettyString());
            throw new AssertionError("golden/" + name + " differs only in number types: " + actual);
        }
    }
}
