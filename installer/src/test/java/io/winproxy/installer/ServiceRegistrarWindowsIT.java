package io.winproxy.installer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** Registers and removes a throw-away service through the real Win32 calls; needs an elevated process. */
@EnabledOnOs(OS.WINDOWS)
class ServiceRegistrarWindowsIT {
    private static final String NAME = "winproxy-registrar-it";

    @Test
    void aServiceIsRegisteredWithItsRecoveryActionsAndRemovedAgain() {
        JnaServiceConfigApi api = new JnaServiceConfigApi();
        ServiceConfigApi.Handle manager;
        try {
            manager = api.openManager();
        } catch (RegistrationException e) {
            assumeTrue(e.win32Error() != RegistrationException.ACCESS_DENIED, "needs an elevated process");
            throw e;
        }
        api.close(manager);
        ServiceRegistrar registrar = new ServiceRegistrar(api);
        String command = CommandLine.join(List.of(System.getenv("ComSpec"), "/c", "exit", "0"));
        try {
            registrar.install(new ServiceDefinition(NAME, "winproxy IT", "throw-away service of an IT", command,
                    StartType.MANUAL, List.of(), RecoveryActions.DEFAULTS), true);
            assertThat(registrar.uninstall(NAME)).isTrue();
            assertThat(registrar.uninstall(NAME)).isFalse();
        } finally {
            registrar.uninstall(NAME);
        }
    }
}
