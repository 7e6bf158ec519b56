package io.winproxy.agent.logging;

import static io.winproxy.agent.logging.LayoutEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import java.io.IOException;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KlogTextLayoutTest {

    private static KlogTextLayout layout(int verbosity) {
        return new KlogTextLayout(ZoneId.of("UTC"), 1234, new LibraryLoggers(verbosity, Map.of()));
    }

    @Test
    void anInfoLineHasKlogsHeaderExactly() {
        assertThat(layout(0).doLayout(event("io.winproxy.agent.sync.ProxySyncLoop", Level.INFO,
                "Synced 3 services", null, Map.of())))
                .isEqualTo("I1123 08:50:30.864123    1234 ProxySyncLoop.java:120] Synced 3 services\n");
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
        assertThat(plusTwo.doLayout(event("io.winproxy.x", Level.INFO, "m", null, Map.of())))
                .isEqualTo("I1123 10:50:30.864123       7 ProxySyncLoop.java:120] m\n");
    }

    @Test
    void structuredEventsPrintAsKlogsInfoS() {
        Map<String, Object> kv = new LinkedHashMap<>();
        kv.put("service", "default/web");
        kv.put("endpoints", 3);
        kv.put("ready", true);
        kv.put("note", "say \"hi\"\n");
        assertThat(layout(0).doLayout(event("io.winproxy.x", Level.INFO, "Service updated", null, kv)))
                .isEqualTo("I1123 08:50:30.864123    1234 ProxySyncLoop.java:120] \"Service updated\""
                        + " service=\"default/web\" endpoints=3 ready=true note=\"say \\\"hi\\\"\\n\"\n");
    }

    @Test
    void winproxysOwnErrorsKeepTheirStackTraceAfterAnErrField() {
        String out = layout(0).doLayout(event("io.winproxy.x", Level.ERROR, "Sync failed",
                new IllegalStateException("boom", new IOException("disk")), Map.of()));
        assertThat(out).startsWith("E1123 08:50:30.864123    1234 ProxySyncLoop.java:120] Sync failed"
                + " err=\"java.lang.IllegalStateException: boom: java.io.IOException: disk\"\n"
                + "java.lang.IllegalStateException: boom\n\tat ");
    }

    @Test
    void clientLibraryEventsStayOnOneLineBelowVerbositySix() {
        String out = layout(5).doLayout(event("io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager",
                Level.WARN, "Exec Failure\nsecond line", new IOException("connection refused"), Map.of()));
        assertThat(out).isEqualTo("W1123 08:50:30.864123    1234 ProxySyncLoop.java:120] Exec Failure second line"
                + " err=\"java.io.IOException: connection refused\"\n");
    }

    @Test
    void clientLibraryEventsKeepTheirStackTraceFromVerbositySix() {
        String out = layout(6).doLayout(event("io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager",
                Level.WARN, "Exec Failure", new IOException("connection refused"), Map.of()));
        assertThat(out.lines().count()).isGreaterThan(2);
        assertThat(out).contains("\n\tat ");
    }

    @Test
    void aVmoduleEntryForALibraryBringsItsStackTracesBack() {
        KlogTextLayout layout = new KlogTextLayout(ZoneId.of("UTC"), 1, new LibraryLoggers(0,
                Map.of("io.fabric8", 6)));
        assertThat(layout.doLayout(event("io.fabric8.x.Y", Level.WARN, "m", new IOException("x"), Map.of())))
                .contains("\tat ");
        assertThat(layout.doLayout(event("io.vertx.core.Z", Level.WARN, "m", new IOException("x"), Map.of())))
                .doesNotContain("\tat ");
    }
}
