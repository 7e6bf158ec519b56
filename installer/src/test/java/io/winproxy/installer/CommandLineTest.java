package io.winproxy.installer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CommandLineTest {

    @Test
    void plainArgumentsAreJoinedWithBlanks() {
        assertThat(CommandLine.join(List.of("C:\\k\\java.exe", "-Xrs", "--config=C:\\k\\kube-proxy.yaml")))
                .isEqualTo("C:\\k\\java.exe -Xrs --config=C:\\k\\kube-proxy.yaml");
    }

    @Test
    void argumentsWithBlanksAreQuotedAndTrailingBackslashesDoubled() {
        assertThat(CommandLine.join(List.of("C:\\Program Files\\Java\\bin\\java.exe", "--log-dir=C:\\my logs\\")))
                .isEqualTo("\"C:\\Program Files\\Java\\bin\\java.exe\" \"--log-dir=C:\\my logs\\\\\"");
    }

    @Test
    void embeddedQuotesAreEscapedWithTheBackslashesBeforeThem() {
        assertThat(CommandLine.quote("say \"hi\"")).isEqualTo("\"say \\\"hi\\\"\"");
        assertThat(CommandLine.quote("a\\\"b")).isEqualTo("\"a\\\\\\\"b\"");
    }

    @Test
    void anEmptyArgumentIsKeptAsEmptyQuotes() {
        assertThat(CommandLine.join(List.of("--source-vip", ""))).isEqualTo("--source-vip \"\"");
    }

    @Test
    void backslashesNotBeforeAQuoteAreLeftAlone() {
        assertThat(CommandLine.quote("C:\\a b\\c")).isEqualTo("\"C:\\a b\\c\"");
    }
}
