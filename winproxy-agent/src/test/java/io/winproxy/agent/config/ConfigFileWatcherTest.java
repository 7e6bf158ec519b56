package io.winproxy.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFileWatcherTest {

    @TempDir
    Path dir;

    @Test
    void aChangedFileIsReportedOnceWithKubeProxysMessage() throws Exception {
        Path f = Files.writeString(dir.resolve("config.yaml"), "mode: kernelspace\n");
        CompletableFuture<String> message = new CompletableFuture<>();
        AtomicInteger calls = new AtomicInteger();
        try (ConfigFileWatcher ignored = ConfigFileWatcher.start(f, m -> {
            calls.incrementAndGet();
            message.complete(m);
        })) {
            Files.writeString(f, "mode: \"\"\n");
            assertThat(message.get(30, TimeUnit.SECONDS))
                    .isEqualTo("content of the proxy server's configuration file was updated");
            Files.writeString(f, "mode: kernelspace\n");
            Thread.sleep(300);
            assertThat(calls.get()).isEqualTo(1);
        }
    }

    @Test
    void aFileReplacedByRenameIsReported() throws Exception {
        Path f = Files.writeString(dir.resolve("config.yaml"), "a: 1\n");
        CompletableFuture<String> message = new CompletableFuture<>();
        try (ConfigFileWatcher ignored = ConfigFileWatcher.start(f, message::complete)) {
            Path tmp = Files.writeString(dir.resolve("config.yaml.tmp"), "a: 2\n");
            Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            assertThat(message.get(30, TimeUnit.SECONDS)).isEqualTo(ConfigFileWatcher.MESSAGE);
        }
    }

    @Test
    void otherFilesAndRewritesWithTheSameContentAreIgnored() throws Exception {
        Path f = Files.writeString(dir.resolve("config.yaml"), "a: 1\n");
        CompletableFuture<String> message = new CompletableFuture<>();
        try (ConfigFileWatcher ignored = ConfigFileWatcher.start(f, message::complete)) {
            Files.writeString(dir.resolve("other.yaml"), "b: 1\n");
            Files.writeString(f, "a: 1\n");
            Thread.sleep(1500);
            assertThat(message).isNotDone();
        }
    }
}
