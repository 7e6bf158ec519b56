package io.winproxy.agent.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The logging before {@link LoggingSetup}: what logback.xml configured, built in code and found by logback. */
class BootstrapConfiguratorTest {

    @Test
    void logbackFindsItAsAConfigurator() {
        assertThat(ServiceLoader.load(Configurator.class).stream().map(ServiceLoader.Provider::type))
                .contains(BootstrapConfigurator.class);
    }

    @Test
    void infoToStandardErrorInKlogTextWithCredentialsRedacted() {
        LoggerContext context = new LoggerContext();

        assertThat(new BootstrapConfigurator().configure(context))
                .isEqualTo(Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);

        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        assertThat(root.getLevel()).isEqualTo(Level.INFO);
        Appender<ILoggingEvent> appender = root.getAppender("stderr");
        assertThat(appender).isInstanceOf(ConsoleAppender.class);
        ConsoleAppender<ILoggingEvent> console = (ConsoleAppender<ILoggingEvent>) appender;
        assertThat(console.getTarget()).isEqualTo("System.err");
        assertThat(console.isStarted()).isTrue();
        var layout = ((LayoutWrappingEncoder<ILoggingEvent>) console.getEncoder()).getLayout();
        assertThat(layout).isInstanceOf(RedactingLayout.class);
        String line = layout.doLayout(LayoutEvents.event("io.winproxy.agent.kube.KubeClientFactory", Level.INFO,
                "sending Authorization: Bearer abc.DEF-123", null, Map.of()));
        assertThat(line).startsWith("I1123 08:50:30.864123").contains("Bearer <redacted>").doesNotContain("abc.DEF");
    }

    @Test
    void anOperatorsLogbackConfigurationFileIsLeftToLogback() {
        String before = System.getProperty("logback.configurationFile");
        System.setProperty("logback.configurationFile", "my-logback.xml");
        try {
            LoggerContext context = new LoggerContext();
            assertThat(new BootstrapConfigurator().configure(context))
                    .isEqualTo(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY);
            assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders().hasNext()).isFalse();
        } finally {
            if (before == null) {
                System.clearProperty("logback.configurationFile");
            } else {
                System.setProperty("logback.configurationFile", before);
            }
        }
    }
}
