package io.winproxy.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * How kube-proxy.exe reads {@code --windows-service} in its own command line to decide whether it is the service
 * (cmdline_bool_flag): as the agent reads the flag, so that the launcher and the agent never disagree.
 */
class CommandLineWindowsServiceFlagTest {

    static Stream<Arguments> commandLines() {
        return Stream.of(
                Arguments.of("kube-proxy.exe --config=c:\\k\\kube-proxy.yaml", NativeCommandLine.FLAG_ABSENT),
                Arguments.of("kube-proxy.exe", NativeCommandLine.FLAG_ABSENT),
                // OpenShift WMCO's binPath
                Arguments.of("\"C:\\k\\kube-proxy.exe\" --windows-service --v=4 --config=C:\\k\\kube-proxy.yaml",
                        NativeCommandLine.FLAG_TRUE),
                Arguments.of("kube-proxy.exe --v=2 --windows-service", NativeCommandLine.FLAG_TRUE),
                Arguments.of("kube-proxy.exe --windows-service=true", NativeCommandLine.FLAG_TRUE),
                Arguments.of("kube-proxy.exe --windows-service=T", NativeCommandLine.FLAG_TRUE),
                Arguments.of("kube-proxy.exe --windows-service=1", NativeCommandLine.FLAG_TRUE),
                Arguments.of("kube-proxy.exe \"--windows-service=True\"", NativeCommandLine.FLAG_TRUE),
                Arguments.of("kube-proxy.exe --windows-service=false", NativeCommandLine.FLAG_FALSE),
                Arguments.of("kube-proxy.exe --windows-service=0", NativeCommandLine.FLAG_FALSE),
                Arguments.of("kube-proxy.exe --windows-service false --v=2", NativeCommandLine.FLAG_FALSE),
                Arguments.of("kube-proxy.exe --windows-service --v=2", NativeCommandLine.FLAG_TRUE),
                Arguments.of("kube-proxy.exe --windows-service=yes", NativeCommandLine.FLAG_INVALID),
                Arguments.of("kube-proxy.exe --windows-service=", NativeCommandLine.FLAG_INVALID),
                Arguments.of("kube-proxy.exe --windows-service \"\"", NativeCommandLine.FLAG_INVALID),
                // the last occurrence wins
                Arguments.of("kube-proxy.exe --windows-service --windows-service=false", NativeCommandLine.FLAG_FALSE),
                Arguments.of("kube-proxy.exe --windows-service=false --windows-service", NativeCommandLine.FLAG_TRUE),
                // other flags that merely start alike, values that merely contain it, and what follows "--"
                Arguments.of("kube-proxy.exe --windows-services", NativeCommandLine.FLAG_ABSENT),
                Arguments.of("kube-proxy.exe --windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS",
                        NativeCommandLine.FLAG_ABSENT),
                Arguments.of("kube-proxy.exe --hostname-override=--windows-service", NativeCommandLine.FLAG_ABSENT),
                Arguments.of("kube-proxy.exe -- --windows-service", NativeCommandLine.FLAG_ABSENT),
                Arguments.of("--windows-service.exe --v=2", NativeCommandLine.FLAG_ABSENT));
    }

    @ParameterizedTest(name = "[{0}] -> {1}")
    @MethodSource("commandLines")
    void readsTheFlagAsTheAgentDoes(String line, int expected) {
        assertThat(NativeCommandLine.boolFlag(line, "--windows-service")).isEqualTo(expected);
    }
}
