package io.winproxy.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What kube-proxy.exe passes on to {@code java -jar winproxy-agent.jar}: every argument re-quoted so that any of the
 * Windows splitting rules (CommandLineToArgvW/Go, the agent's reference, the C runtime) gives back the same argv.
 */
class CommandLineQuoteTest {

    static Stream<Arguments> arguments() {
        return Stream.of(
                Arguments.of("--v=4", "--v=4"),
                Arguments.of("C:\\k\\config", "C:\\k\\config"),
                Arguments.of("trailing\\", "trailing\\"),
                Arguments.of("", "\"\""),
                Arguments.of("a b", "\"a b\""),
                Arguments.of("tab\there", "\"tab\there\""),
                Arguments.of("C:\\Program Files\\k\\", "\"C:\\Program Files\\k\\\\\""),
                Arguments.of("say \"hi\"", "\"say \\\"hi\\\"\""),
                Arguments.of("a\\\"b", "\"a\\\\\\\"b\""),
                Arguments.of("\"", "\"\\\"\""),
                Arguments.of("*", "\"*\""),
                Arguments.of("--log-dir=C:\\logs\\?", "\"--log-dir=C:\\logs\\?\""),
                Arguments.of("名前😀", "名前😀"));
    }

    @ParameterizedTest(name = "[{0}] -> [{1}]")
    @MethodSource("arguments")
    void quotesOnlyWhatNeedsQuotingAndSplitsBackToTheSameArgument(String arg, String quoted) {
        assertThat(NativeCommandLine.quote(arg)).isEqualTo(quoted);
        assertThat(NativeCommandLine.split(quoted)).containsExactly(arg);
        assertThat(CommandLineToArgv.split(quoted)).containsExactly(arg);
        assertThat(AgentCommandLineReference.split(quoted)).containsExactly(arg);
    }

    @Test
    void wildcardsReachTheJavaLauncherQuotedSoItDoesNotExpandThem() {
        // java.exe on Windows replaces an unquoted argument with * or ? by the matching file names
        assertThat(NativeCommandLine.forward("kube-proxy.exe --feature-gates=* \"a?b\" plain"))
                .isEqualTo("\"--feature-gates=*\" \"a?b\" plain");
    }

    @Test
    void noArgumentsForwardNothing() {
        assertThat(NativeCommandLine.forward("C:\\k\\kube-proxy.exe")).isEmpty();
        assertThat(NativeCommandLine.forward("\"C:\\k\\kube-proxy.exe\"   ")).isEmpty();
    }

    @Test
    void randomCommandLinesReachTheAgentAsTheSameArgvUnderEverySplittingRule() {
        for (String arguments : RandomCommandLines.lines(1123L, 20_000, 0, 40)) {
            String line = "C:\\k\\kube-proxy.exe " + arguments;
            List<String> expected = CommandLineToArgv.arguments(line);
            String forwarded = NativeCommandLine.forward(line);

            assertThat(CommandLineToArgv.split(forwarded)).as("[%s] -> [%s]", line, forwarded).isEqualTo(expected);
            assertThat(Arrays.asList(AgentCommandLineReference.split(forwarded))).as("[%s] -> [%s]", line, forwarded)
                    .isEqualTo(expected);
            assertThat(NativeCommandLine.split(forwarded)).isEqualTo(expected);
        }
    }

    @Test
    void randomArgvListsSurviveQuotingAndSplitting() {
        Random random = new Random(42L);
        for (int i = 0; i < 5_000; i++) {
            List<String> argv = new ArrayList<>();
            for (int n = random.nextInt(6); n > 0; n--) {
                argv.add(RandomCommandLines.line(random, random.nextInt(8)));
            }
            StringBuilder line = new StringBuilder("\"C:\\Program Files\\winproxy\\kube-proxy.exe\"");
            argv.forEach(arg -> line.append(' ').append(NativeCommandLine.quote(arg)));

            assertThat(CommandLineToArgv.arguments(line.toString())).isEqualTo(argv);
            assertThat(CommandLineToArgv.split(NativeCommandLine.forward(line.toString()))).isEqualTo(argv);
        }
    }

    @Test
    void veryLongCommandLinesAreForwardedWhole() {
        String value = "x\\\"y z\\".repeat(20_000); // 120,000 units, far beyond the 32,767 Windows allows
        String line = "kube-proxy.exe --a=" + NativeCommandLine.quote(value) + " --b";

        assertThat(CommandLineToArgv.split(NativeCommandLine.forward(line))).containsExactly("--a=" + value, "--b");
    }
}
