package io.winproxy.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** cmdline.c splits a command line as CommandLineToArgvW and Go's os.Args (kube-proxy.exe's own argv) do. */
class CommandLineSplitTest {

    static Stream<Arguments> commandLines() {
        return Stream.of(
                Arguments.of("--v=4 --proxy-mode=kernelspace", List.of("--v=4", "--proxy-mode=kernelspace")),
                Arguments.of("  \t--v=4\t\t--x  ", List.of("--v=4", "--x")),
                Arguments.of("\"abc\" d e", List.of("abc", "d", "e")),
                Arguments.of("a\\\\b d\"e f\"g h", List.of("a\\\\b", "de fg", "h")),
                Arguments.of("a\\\\\\\"b c d", List.of("a\\\"b", "c", "d")),
                Arguments.of("a\\\\\\\\\"b c\" d e", List.of("a\\\\b c", "d", "e")),
                Arguments.of("--kubeconfig=\"c:\\k\\config\"", List.of("--kubeconfig=c:\\k\\config")),
                Arguments.of("--resource-container=\"\"", List.of("--resource-container=")),
                Arguments.of("\"\" \"\" x", List.of("", "", "x")),
                Arguments.of("\"C:\\Program Files\\k\\\\\" next", List.of("C:\\Program Files\\k\\", "next")),
                Arguments.of("trailing\\", List.of("trailing\\")),
                Arguments.of("trailing\\\\ \\\\", List.of("trailing\\\\", "\\\\")),
                Arguments.of("\"unterminated quote", List.of("unterminated quote")),
                Arguments.of("\"quoted\\\"", List.of("quoted\"")),
                // two double quotes inside quotes: a literal quote, and the quoting ends (CommandLineToArgvW, Go)
                Arguments.of("a\"b\"\" c d", List.of("ab\"", "c", "d")),
                Arguments.of("\"a\"\"b c\"", List.of("a\"b", "c")),
                Arguments.of("\"\"\"\"", List.of("\"")),
                Arguments.of("\"a b\"c\" d\"", List.of("a bc d")),
                Arguments.of("--hostname-override=wïn-ñode 名前 😀", List.of("--hostname-override=wïn-ñode", "名前",
                        "😀")),
                Arguments.of("*.yaml --x=?", List.of("*.yaml", "--x=?")),
                Arguments.of("", List.of()),
                Arguments.of(" \t ", List.of()));
    }

    @ParameterizedTest(name = "[{0}]")
    @MethodSource("commandLines")
    void splitsAsCommandLineToArgvW(String args, List<String> expected) {
        assertThat(NativeCommandLine.split(args)).isEqualTo(expected);
        assertThat(CommandLineToArgv.split(args)).as("the independent model agrees").isEqualTo(expected);
    }

    @Test
    void theProgramNameIsSkippedByItsOwnRuleWithoutEscapes() {
        assertThat(NativeCommandLine.arguments("C:\\k\\kube-proxy.exe --v=4 x")).isEqualTo("--v=4 x");
        assertThat(NativeCommandLine.arguments("C:\\k\\kube-proxy.exe\t \t--v=4")).isEqualTo("--v=4");
        assertThat(NativeCommandLine.arguments("\"C:\\Program Files\\kube proxy\\kube-proxy.exe\" --v=4"))
                .isEqualTo("--v=4");
        // a backslash before the closing quote of the program name is a path separator, not an escape
        assertThat(NativeCommandLine.arguments("\"C:\\k\\\" --v=4")).isEqualTo("--v=4");
        // the arguments may start right after the program name's closing quote
        assertThat(NativeCommandLine.arguments("\"kube-proxy.exe\"--v=4")).isEqualTo("--v=4");
        assertThat(NativeCommandLine.arguments("kube-proxy.exe")).isEmpty();
        assertThat(NativeCommandLine.arguments("\"kube-proxy.exe")).isEmpty();
        assertThat(NativeCommandLine.arguments("")).isEmpty();
    }

    @Test
    void randomCommandLinesSplitAsTheIndependentModelSplitsThem() {
        for (String line : RandomCommandLines.lines(20261123L, 20_000, 1, 40)) {
            assertThat(NativeCommandLine.split(line)).as("[%s]", line).isEqualTo(CommandLineToArgv.split(line));
        }
    }
}
