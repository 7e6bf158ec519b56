package io.winproxy.agent.logging;

import static io.winproxy.agent.logging.LayoutEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.LoggingEvent;
import java.io.IOException;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KlogTextLayoutTest {

    /** Values an attacker controls (object names, annotations, HNS documents) and that must not break a line. */
    static final List<String> HOSTILE = List.of(
            "web\nI1123 08:50:30.000000       1 forged.go:1] \"Forged line\"",
            "\u001b[31mred\u001b[0m",
            "say \"hi\" \\ back\\slash",
            "tab\there\rcarriage",
            "bell\u0007 nul\u0000 del\u007f",
            "c1\u0085 bidi\u202e lsep\u2028 nbsp\u00a0",
            "lone \ud800 surrogate",
            "emoji \ud83d\ude00 and ümlaut and 日本",
            "trailing backslash\\");

    private static KlogTextLayout layout(int verbosity) {
        return new KlogTextLayout(ZoneId.of("UTC"), 1234, new LibraryLoggers(verbosity, Map.of()));
    }

    @Test
    void anInfoLineHasKlogsHeaderAndAQuotedMessage() {
        assertThat(layout(0).doLayout(event("io.winproxy.agent.sync.ProxySyncLoop", Level.INFO,
                "Services synced", null, Map.of())))
                .isEqualTo("I1123 08:50:30.864123    1234 ProxySyncLoop.java:120] \"Services synced\"\n");
    }

    @Test
    void theSeverityLetterIsIWOrE() {
        assertThat(layout(0).doLayout(event("io.winproxy.x", Level.WARN, "w", null, Map.of()))).startsWith("W1123 ");
        assertThat(layout(0).doLayout(event("io.winproxy.x", Level.ERROR, "e", null, Map.of()))).startsWith("E1123 ");
        assertThat(layout(0).doLayout(event("io.winproxy.x", Level.DEBUG, "d", null, Map.of()))).startsWith("I1123 ");
    }

    @Test
    void theHeaderIsInTheGivenTimeZoneAsKlogUsesLocalTime() {
        KlogTextLayout plusTwo = new KlogTextLayout(ZoneId.of("+02:00"), 7, new LibraryLoggers(0, Map.of()));
        assertThat(plusTwo.doLayout(event("io.winproxy.x", Level.INFO, "M", null, Map.of())))
                .isEqualTo("I1123 10:50:30.864123       7 ProxySyncLoop.java:120] \"M\"\n");
    }

    @Test
    void keyValuesPrintAsKlogsInfoS() {
        Map<String, Object> kv = new LinkedHashMap<>();
        kv.put("service", "default/web");
        kv.put("endpoints", 3);
        kv.put("ready", true);
        kv.put("note", "say \"hi\"\n");
        kv.put("IPs", List.of("172.18.0.2", "fd00::2"));
        kv.put("missing", null);
        kv.put("path", java.nio.file.Path.of("/var/log/kube-proxy.log"));
        assertThat(layout(0).doLayout(event("io.winproxy.x", Level.INFO, "Service updated", null, kv)))
                .isEqualTo("I1123 08:50:30.864123    1234 ProxySyncLoop.java:120] \"Service updated\""
                        + " service=\"default/web\" endpoints=3 ready=true note=\"say \\\"hi\\\"\\n\""
                        + " IPs=[\"172.18.0.2\",\"fd00::2\"] missing=<nil> path=\"/var/log/kube-proxy.log\"\n");
    }

    @Test
    void aPathValueIsTextNotAnEndlessListOfItself() {
        // java.nio.file.Path is an Iterable<Path> whose one name is itself: read as a list it never ends.
        Map<String, Object> kv = new LinkedHashMap<>();
        kv.put("stateDir", java.nio.file.Path.of("state"));
        assertThat(layout(0).doLayout(event("io.winproxy.x", Level.INFO, "Started", null, kv)))
                .endsWith("\"Started\" stateDir=\"state\"\n");
        assertThat(new JsonLineLayout(new LibraryLoggers(0, Map.of())).doLayout(event("io.winproxy.x", Level.INFO,
                "Started", null, kv))).endsWith(",\"stateDir\":\"state\"}\n");
    }

    /**
     * Real kube-proxy lines (kube-proxy v1.25-era log quoted in kubernetes/kubernetes PR #111219, and the example of
     * kubernetes.io's "System Logs" page): the same message and key/values through winproxy's layout must give the
     * same bytes.
     */
    @ParameterizedTest
    @ValueSource(strings = {
            "I0705 07:15:18.113626    2171 proxier.go:1495] \"Reloading service iptables data\" numServices=117"
                    + " numEndpoints=215 numFilterChains=4 numFilterRules=4 numNATChains=338 numNATRules=897",
            "I0705 07:15:18.162045    2171 proxier.go:832] \"SyncProxyRules complete\" elapsed=\"175.66099ms\"",
            "I0705 07:15:18.108161    2171 topology.go:158] \"Skipping topology aware endpoint filtering since node"
                    + " is missing label\" label=\"topology.kubernetes.io/zone\"",
            "I1025 00:15:15.525108       1 controller_utils.go:116] \"Pod status updated\" pod=\"kube-system/kubedns\""
                    + " status=\"ready\""})
    void realKubeProxyLinesAreReproducedByteForByte(String real) {
        KlogLineParser.Line parsed = KlogLineParser.parse(real);
        Map<String, Object> kv = new LinkedHashMap<>();
        parsed.values().forEach((k, v) -> kv.put(k, v.matches("-?\\d+") && !real.contains(k + "=\"")
                ? (Object) Long.parseLong(v) : v));
        LoggingEvent e = event("io.winproxy.x", Level.INFO, parsed.message(), null, kv);
        LocalDateTime t = LocalDateTime.parse("2022-" + parsed.date().substring(0, 2) + "-"
                + parsed.date().substring(2) + "T" + parsed.time());
        e.setInstant(t.toInstant(ZoneOffset.UTC));
        String[] caller = parsed.caller().split(":");
        e.setCallerData(new StackTraceElement[] {
                new StackTraceElement("k8s.Proxier", "sync", caller[0], Integer.parseInt(caller[1]))});
        KlogTextLayout layout = new KlogTextLayout(ZoneId.of("UTC"), parsed.pid(), new LibraryLoggers(0, Map.of()));
        assertThat(layout.doLayout(e)).isEqualTo(real + "\n");
    }

    @Test
    void hostileMessagesArgumentsAndValuesStayOneParseableLineAndRoundTrip() {
        for (String hostile : HOSTILE) {
            for (int verbosity : new int[] {0, 4, 9}) {
                LoggingEvent e = event("io.winproxy.x", Level.WARN, "Skipping {} in {}",
                        new IOException(hostile), Map.of("endpointSlice", hostile, "n", 2),
                        new Object[] {hostile, "ns/" + hostile});
                String out = layout(verbosity).doLayout(e);
                assertThat(out).endsWith("\n");
                String line = out.substring(0, out.length() - 1);
                assertThat(line).doesNotContain("\n", "\r", "\u001b", "\u0000", "\u0085", "\u2028", "\u202e");
                KlogLineParser.Line parsed = KlogLineParser.parse(line);
                assertThat(parsed.message()).isEqualTo("Skipping " + hostile + " in ns/" + hostile);
                assertThat(parsed.values().get("endpointSlice")).isEqualTo(hostile);
                assertThat(parsed.values().get("n")).isEqualTo("2");
                assertThat(parsed.values().get("err")).startsWith("java.io.IOException: " + hostile);
            }
        }
    }

    @Test
    void stringsAreQuotedAsGoQuotesThem() {
        assertThat(KlogValues.quote("a\"b\\c\nd\te\rf\u0007\b\f\u000b")).isEqualTo(
                "\"a\\\"b\\\\c\\nd\\te\\rf\\a\\b\\f\\v\"");
        assertThat(KlogValues.quote("\u001b[31m\u0000\u007f")).isEqualTo("\"\\x1b[31m\\x00\\x7f\"");
        assertThat(KlogValues.quote("\u0085\u00a0\u2028\u202e\ufeff")).isEqualTo(
                "\"\\u0085\\u00a0\\u2028\\u202e\\ufeff\"");
        assertThat(KlogValues.quote("\udb80\udc00")).isEqualTo("\"\\U000f0000\"");
        assertThat(KlogValues.quote("ümlaut 日本 \ud83d\ude00")).isEqualTo("\"ümlaut 日本 \ud83d\ude00\"");
    }

    @Test
    void aPlaceholderMessageIsOneQuotedMessage() {
        String out = layout(0).doLayout(event("io.winproxy.x", Level.INFO, "Sync {}: {} created", null,
                Map.of(), new Object[] {7, "a\nb"}));
        assertThat(out).isEqualTo("I1123 08:50:30.864123    1234 ProxySyncLoop.java:120] \"Sync 7: a\\nb created\"\n");
    }

    @Test
    void errorsCarryErrAfterTheMessageAsErrorSDoes() {
        String out = layout(0).doLayout(event("io.winproxy.x", Level.ERROR, "Sync failed",
                new IllegalStateException("boom", new IOException("disk")), Map.of("sync", 3)));
        assertThat(out).isEqualTo("E1123 08:50:30.864123    1234 ProxySyncLoop.java:120] \"Sync failed\""
                + " err=\"java.lang.IllegalStateException: boom: java.io.IOException: disk\" sync=3\n");
    }

    @Test
    void fromVerbosityFourWinproxysErrorsCarryTheirStackTraceInsideErrOnOneLine() {
        String out = layout(4).doLayout(event("io.winproxy.x", Level.ERROR, "Sync failed",
                new IllegalStateException("boom"), Map.of()));
        assertThat(out.lines()).hasSize(1);
        String err = KlogLineParser.parse(out.strip()).values().get("err");
        assertThat(err).startsWith("java.lang.IllegalStateException: boom\njava.lang.IllegalStateException: boom")
                .contains("\n\tat ");
    }

    @Test
    void clientLibraryEventsHaveNoStackTraceBelowVerbositySix() {
        String out = layout(5).doLayout(event("io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager",
                Level.WARN, "Exec Failure\nsecond line", new IOException("connection refused"), Map.of()));
        assertThat(out).isEqualTo("W1123 08:50:30.864123    1234 ProxySyncLoop.java:120] \"Exec Failure\\nsecond line\""
                + " err=\"java.io.IOException: connection refused\"\n");
    }

    @Test
    void clientLibraryEventsCarryTheirStackTraceFromVerbositySixStillOnOneLine() {
        String out = layout(6).doLayout(event("io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager",
                Level.WARN, "Exec Failure", new IOException("connection refused"), Map.of()));
        assertThat(out.lines()).hasSize(1);
        assertThat(out).contains("\\n\\tat ");
    }

    @Test
    void aVmoduleEntryForALibraryBringsItsStackTracesBack() {
        KlogTextLayout layout = new KlogTextLayout(ZoneId.of("UTC"), 1, new LibraryLoggers(0,
                Map.of("io.fabric8", 6)));
        assertThat(layout.doLayout(event("io.fabric8.x.Y", Level.WARN, "m", new IOException("x"), Map.of())))
                .contains("\\tat ");
        assertThat(layout.doLayout(event("io.vertx.core.Z", Level.WARN, "m", new IOException("x"), Map.of())))
                .doesNotContain("\\tat ");
    }

    @Test
    void credentialsInsideValuesAreRedactedBeforeEscaping() {
        String out = layout(0).doLayout(event("io.winproxy.x", Level.WARN, "HNS answered", null,
                Map.of("document", "{\"token\":\"s3cr3t\",\"Authorization\":\"Bearer abc.def\"}")));
        assertThat(out).doesNotContain("s3cr3t").doesNotContain("abc.def").contains(Redactor.MASK);
    }

    @Test
    void aValueThatNestsItselfOrCannotPrintItselfStillGivesOneLine() {
        List<Object> loop = new java.util.ArrayList<>();
        loop.add(loop);
        Object broken = new Object() {
            @Override
            public String toString() {
                throw new IllegalStateException("no\nway");
            }
        };
        Map<String, Object> kv = new LinkedHashMap<>();
        kv.put("loop", loop);
        kv.put("broken", broken);
        String out = layout(0).doLayout(event("io.winproxy.x", Level.INFO, "Odd values", null, kv));
        assertThat(out.lines()).hasSize(1);
        KlogLineParser.Line line = KlogLineParser.parse(out.strip());
        assertThat(line.values().get("loop")).startsWith("[[[").contains("\"...\"");
        assertThat(line.values().get("broken")).contains("toString failed").contains("no\nway");
        assertThat(new JsonLineLayout(new LibraryLoggers(0, Map.of())).doLayout(event("io.winproxy.x", Level.INFO,
                "Odd values", null, kv)).lines()).hasSize(1);
    }
}
