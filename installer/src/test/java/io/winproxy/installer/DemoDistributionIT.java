package io.winproxy.installer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * winproxy-VERSION-demo.zip: unpacked anywhere, the README's demo runs with a system Java
 * ({@code java -jar winproxy-agent.jar demo}), the embedded API server and its closure in lib\, with notices and
 * checksums like the node's zip (which leaves the demo out).
 */
class DemoDistributionIT {

    private static Map<String, byte[]> read() throws IOException {
        String version = System.getProperty("winproxy.version", "0.1.0-SNAPSHOT");
        Path path = Path.of(System.getProperty("winproxy.demo-distribution",
                "target/winproxy-" + version + "-demo.zip"));
        Map<String, byte[]> zip = new HashMap<>();
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(path))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                if (!entry.isDirectory()) {
                    zip.put(entry.getName(), in.readAllBytes());
                }
            }
        }
        return zip;
    }

    @Test
    void theReadmeDemoRunsFromTheUnpackedDemoZipWithASystemJava(@TempDir Path home)
            throws IOException, InterruptedException {
        Map<String, byte[]> zip = read();
        assertThat(zip).containsKeys("winproxy-agent.jar", "winproxy.cmd", "THIRD-PARTY-NOTICES", "SHA256SUMS");
        assertThat(zip.keySet()).anyMatch(name -> name.matches("lib/winproxy-demo-.*\\.jar"))
                .anyMatch(name -> name.matches("lib/kubernetes-server-mock-.*\\.jar"));
        String notices = new String(zip.get("THIRD-PARTY-NOTICES"), StandardCharsets.UTF_8);
        assertThat(notices).contains("io.fabric8:kubernetes-server-mock:").contains("io.vertx:vertx-core:");
        for (Map.Entry<String, byte[]> entry : zip.entrySet()) {
            Path file = home.resolve(entry.getKey());
            Files.createDirectories(file.getParent());
            Files.write(file, entry.getValue());
        }

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process demo = new ProcessBuilder(java, "-jar", "winproxy-agent.jar", "demo", "--once")
                .directory(home.toFile()).redirectErrorStream(true).start();
        demo.getOutputStream().close();
        String out = new String(demo.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(demo.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(demo.exitValue()).as(out).isZero();
        assertThat(out).doesNotContain("not part of this distribution").contains("Sync complete");
    }
}
