package io.winproxy.agent.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class VerbosityLevelsTest {

    @ParameterizedTest(name = "--v={0}: winproxy {1}, client libraries {2}")
    @CsvSource({"0, INFO, WARN", "1, INFO, WARN", "2, DEBUG, WARN", "3, DEBUG, WARN", "4, TRACE, WARN",
            "5, TRACE, WARN", "6, TRACE, DEBUG", "8, TRACE, DEBUG", "9, TRACE, TRACE", "10, TRACE, TRACE"})
    void verbosityMapsOntoLogbackLevels(int v, String winproxy, String libraries) {
        Map<String, Level> levels = VerbosityLevels.levels(v, "");
        assertThat(levels).containsEntry("ROOT", Level.INFO)
                .containsEntry("io.winproxy", Level.toLevel(winproxy))
                .hasSize(3 + LibraryLoggers.PREFIXES.size());
        for (String library : new String[] {"io.fabric8", "io.vertx", "io.netty", "jdk.internal.httpclient",
                "okhttp3"}) {
            assertThat(levels).containsEntry(library, Level.toLevel(libraries));
        }
    }

    @ParameterizedTest(name = "--v={0}: reflector {1}")
    @CsvSource({"0, ERROR", "5, ERROR", "6, DEBUG", "9, TRACE"})
    void theInformerReflectorsStackTracesAreHiddenBelowV6BecauseWinproxyReportsListFailuresInOneLine(int v,
                                                                                                   String level) {
        assertThat(VerbosityLevels.levels(v, ""))
                .containsEntry("io.fabric8.kubernetes.client.informers.impl.cache.Reflector", Level.toLevel(level));
    }

    @Test
    void vmoduleEntriesSetNamedLoggersAfterTheGlobalLevels() {
        Map<String, Level> levels = VerbosityLevels.levels(0, "io.winproxy.agent.sync=5, io.winproxy.hns=2");
        assertThat(levels.keySet()).startsWith("ROOT", "io.winproxy", "io.fabric8")
                .endsWith(VerbosityLevels.INFORMER_REFLECTOR, "io.winproxy.agent.sync", "io.winproxy.hns");
        assertThat(levels.get("io.winproxy.agent.sync")).isEqualTo(Level.TRACE);
        assertThat(levels.get("io.winproxy.hns")).isEqualTo(Level.DEBUG);
    }

    @Test
    void aMalformedVmoduleIsRejected() {
        assertThatThrownBy(() -> VerbosityLevels.levels(0, "io.winproxy=x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("io.winproxy");
    }
}
