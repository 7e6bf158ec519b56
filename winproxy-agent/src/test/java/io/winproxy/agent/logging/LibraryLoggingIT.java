package io.winproxy.agent.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A real fabric8 informer against an API server address where nothing listens: below {@code --v=6} the client
 * libraries' output is at most one klog line per event and has no stack trace; at {@code --v=6} the stack traces
 * are there.
 */
class LibraryLoggingIT {

    private static final String KLOG_LINE = "[IWE]\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6} +\\d+ [^ ]+:\\d+\\] .*";

    private final LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();

    @AfterEach
    void restoreTheBundledConfiguration() throws Exception {
        context.reset();
        new ContextInitializer(context).autoConfig();
    }

    private static List<String> runAnInformerAgainstAnUnreachableApi(LoggerContext context, int verbosity)
            throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        LoggingSetup.configure(context, LoggingOptions.defaults().withVerbosity(verbosity), out);
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
                .withMasterUrl("http://127.0.0.1:" + port).withRequestRetryBackoffLimit(1)
                .withRequestRetryBackoffInterval(100).withConnectionTimeout(500).withRequestTimeout(500)
                .build()).build()) {
            SharedIndexInformer<Service> informer = client.services().inAnyNamespace().runnableInformer(0);
            informer.start();
            Thread.sleep(Duration.ofSeconds(4).toMillis());
            informer.stop();
        }
        context.stop();
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void belowVerbositySixTheClientLibrariesWriteOneKlogLinePerEventAndNoStackTrace() throws Exception {
        List<String> lines = runAnInformerAgainstAnUnreachableApi(context, 2);
        System.out.printf("--v=2: %d lines, %d stack-trace lines%n", lines.size(), stackTraceLines(lines));
        assertThat(lines).allMatch(line -> line.matches(KLOG_LINE));
        lines.forEach(KlogLineParser::parse);
        assertThat(stackTraceLines(lines)).isZero();
        assertThat(lines).hasSizeLessThan(10);
    }

    @Test
    void atVerbositySixTheClientLibrariesShowRequestDetailWithStackTraces() throws Exception {
        List<String> lines = runAnInformerAgainstAnUnreachableApi(context, 6);
        System.out.printf("--v=6: %d lines, %d stack-trace lines%n", lines.size(), stackTraceLines(lines));
        assertThat(stackTraceLines(lines)).isPositive();
        assertThat(lines).allMatch(line -> line.matches(KLOG_LINE));
        lines.forEach(KlogLineParser::parse);
        assertThat(lines).anyMatch(line -> line.contains("127.0.0.1"));
    }

    private static long stackTraceLines(List<String> lines) throws IOException {
        // A stack trace is inside the record's quoted err value (escaped), never on lines of its own.
        return lines.stream().filter(line -> line.contains("\\n\\tat ")).count();
    }
}
