package io.winproxy.agent.winsvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PriorityClassTest {

    @ParameterizedTest
    @CsvSource({
        "IDLE_PRIORITY_CLASS, 0x40",
        "BELOW_NORMAL_PRIORITY_CLASS, 0x4000",
        "NORMAL_PRIORITY_CLASS, 0x20",
        "ABOVE_NORMAL_PRIORITY_CLASS, 0x8000",
        "HIGH_PRIORITY_CLASS, 0x80",
        "REALTIME_PRIORITY_CLASS, 0x100",
    })
    void theKubeletSpellingsMapToTheWin32Values(String name, String hex) {
        int value = Integer.decode(hex);
        assertThat(PriorityClass.parse(name).win32()).isEqualTo(value);
        assertThat(PriorityClass.fromWin32(value).name()).isEqualTo(name);
    }

    @Test
    void parsingIgnoresCaseAndSurroundingBlanks() {
        assertThat(PriorityClass.parse(" above_normal_priority_class "))
                .isEqualTo(PriorityClass.ABOVE_NORMAL_PRIORITY_CLASS);
    }

    @Test
    void theDefaultIsNormal() {
        assertThat(PriorityClass.DEFAULT).isEqualTo(PriorityClass.NORMAL_PRIORITY_CLASS);
    }

    @Test
    void anUnknownNameIsRejectedWithAOneLineMessageNamingTheFlag() {
        assertThatThrownBy(() -> PriorityClass.parse("AboveNormal"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("invalid --windows-priorityclass \"AboveNormal\"")
                .hasMessageContaining("ABOVE_NORMAL_PRIORITY_CLASS")
                .hasMessageNotContaining("\n");
        assertThatThrownBy(() -> PriorityClass.parse(null)).hasMessageContaining("--windows-priorityclass");
    }
}
