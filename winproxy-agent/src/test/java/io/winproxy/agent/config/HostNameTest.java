package io.winproxy.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class HostNameTest {

    @Test
    @EnabledOnOs(OS.LINUX)
    void onLinuxItIsTheKernelsHostNameLowerCasedNotTheEnvironment() throws Exception {
        String kernel = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim().toLowerCase(Locale.ROOT);
        assertThat(HostName.machine(Map.of("COMPUTERNAME", "SOMETHING-ELSE", "HOSTNAME", "other")))
                .isEqualTo(kernel);
    }

    @Test
    void theNameIsNeverUpperCaseOrPadded() {
        String name = HostName.machine(Map.of());
        assertThat(name).isEqualTo(name.trim().toLowerCase(Locale.ROOT));
    }
}
