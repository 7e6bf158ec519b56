package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileTokenProviderTest {
    @TempDir
    Path dir;

    private final AtomicLong nanos = new AtomicLong();

    private Path write(String content) throws IOException {
        Path next = Files.writeString(dir.resolve("token.next"), content);
        return Files.move(next, dir.resolve("token"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void theTokenIsTrimmedAndAReplacedFileIsReadAtTheNextRequest() throws IOException {
        Path file = write("  first\n");
        FileTokenProvider provider = new FileTokenProvider(file, nanos::get);
        assertThat(provider.getToken()).isEqualTo("first");

        write("second\n");

        assertThat(provider.getToken()).isEqualTo("second");
    }

    @Test
    void anUnchangedLookingFileIsReadAgainOnceAMinute() throws IOException {
        Path file = write("first");
        FileTime stamp = Files.getLastModifiedTime(file);
        FileTokenProvider provider = new FileTokenProvider(file, nanos::get);
        // rewritten in place with the same size and modification time: nothing tells it changed
        Files.writeString(file, "other");
        Files.setLastModifiedTime(file, stamp);

        assertThat(provider.getToken()).as("within the minute the token read is used").isEqualTo("first");
        nanos.addAndGet(FileTokenProvider.MAX_AGE.toNanos());
        assertThat(provider.getToken()).isEqualTo("other");
    }

    @Test
    void aMissingOrEmptyFileKeepsTheLastTokenReadUntilTheFileIsBack() throws IOException {
        Path file = write("first");
        FileTokenProvider provider = new FileTokenProvider(file, nanos::get);

        Files.delete(file);
        assertThat(provider.getToken()).isEqualTo("first");
        write("   \n");
        assertThat(provider.getToken()).as("an empty file is a rotation caught half-way").isEqualTo("first");
        write("second");
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(provider.getToken()).isEqualTo("second");
    }

    @Test
    void aFileWithoutATokenIsRefusedAtTheStart() throws IOException {
        Path file = write("\n");
        assertThatThrownBy(() -> new FileTokenProvider(file, nanos::get)).isInstanceOf(IOException.class)
                .hasMessageContaining("no token");
    }
}
