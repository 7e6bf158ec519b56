package io.winproxy.installer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.InOrder;

class ServiceRegistrarTest {
    private final ServiceConfigApi api = mock(ServiceConfigApi.class);
    private final ServiceConfigApi.Handle manager = new ServiceConfigApi.Handle() { };
    private final ServiceConfigApi.Handle created = new ServiceConfigApi.Handle() { };
    private final ServiceConfigApi.Handle existing = new ServiceConfigApi.Handle() { };
    private final ServiceRegistrar registrar = new ServiceRegistrar(api);

    private static final String COMMAND = "\"C:\\k\\winproxy\\runtime\\bin\\java.exe\" -Xrs -jar "
            + "C:\\k\\winproxy\\winproxy-agent.jar --windows-service";

    @BeforeEach
    void scm() {
        when(api.openManager()).thenReturn(manager);
        when(api.openService(manager, "kube-proxy")).thenReturn(Optional.empty());
        when(api.createService(eq(manager), anyString(), anyString(), anyInt(), anyString(), anyList()))
                .thenReturn(created);
    }

    private static ServiceDefinition definition(StartType startType) {
        return new ServiceDefinition("kube-proxy", "winproxy", "programs HNS", COMMAND, startType, List.of("hns"),
                RecoveryActions.DEFAULTS);
    }

    @Test
    void installCreatesTheServiceAndSetsItsRecoveryActionsAndTheFailureFlag() {
        registrar.install(definition(StartType.AUTOMATIC), false);

        InOrder order = inOrder(api);
        order.verify(api).createService(manager, "kube-proxy", "winproxy", 2, COMMAND, List.of("hns"));
        order.verify(api).setDescription(created, "programs HNS");
        order.verify(api).setFailureActions(created, List.of(10_000, 30_000, 60_000), 900);
        order.verify(api).setFailureActionsOnNonCrashFailures(created, true);
        order.verify(api).close(created);
        order.verify(api).close(manager);
        verify(api, never()).setDelayedAutoStart(any(), anyBoolean());
        verify(api, never()).delete(any());
    }

    @Test
    void delayedAutomaticStartIsAnAutoStartServiceWithTheDelayedFlag() {
        registrar.install(definition(StartType.AUTOMATIC_DELAYED), false);

        verify(api).createService(manager, "kube-proxy", "winproxy", 2, COMMAND, List.of("hns"));
        verify(api).setDelayedAutoStart(created, true);
    }

    @Test
    void manualStartIsDemandStart() {
        registrar.install(definition(StartType.MANUAL), false);

        verify(api).createService(manager, "kube-proxy", "winproxy", 3, COMMAND, List.of("hns"));
    }

    @Test
    void anExistingServiceIsRefusedWithoutReplace() {
        when(api.openService(manager, "kube-proxy")).thenReturn(Optional.of(existing));

        assertThatThrownBy(() -> registrar.install(definition(StartType.AUTOMATIC), false))
                .isInstanceOf(RegistrationException.class)
                .hasMessage("a service named kube-proxy already exists; remove it first, or pass --replace");
        verify(api, never()).createService(any(), anyString(), anyString(), anyInt(), anyString(), anyList());
        verify(api).close(existing);
        verify(api).close(manager);
    }

    @Test
    void replaceDeletesAStoppedServiceBeforeCreatingTheNewOne() {
        when(api.openService(manager, "kube-proxy")).thenReturn(Optional.of(existing), Optional.empty());
        when(api.isStopped(existing)).thenReturn(true);

        registrar.install(definition(StartType.AUTOMATIC), true);

        InOrder order = inOrder(api);
        order.verify(api).delete(existing);
        order.verify(api).close(existing);
        order.verify(api).createService(manager, "kube-proxy", "winproxy", 2, COMMAND, List.of("hns"));
    }

    @Test
    void replaceWaitsUntilTheOldServiceIsReallyGoneBeforeCreatingTheNewOne() {
        List<Duration> sleeps = new ArrayList<>();
        ServiceRegistrar waiting = new ServiceRegistrar(api, Duration.ofSeconds(30), Duration.ofMillis(250),
                sleeps::add);
        ServiceConfigApi.Handle stillThere = new ServiceConfigApi.Handle() { };
        // Marked for deletion: OpenService still succeeds twice after DeleteService, then the SCM has removed it.
        when(api.openService(manager, "kube-proxy")).thenReturn(Optional.of(existing), Optional.of(stillThere),
                Optional.of(stillThere), Optional.empty());
        when(api.isStopped(existing)).thenReturn(true);

        waiting.install(definition(StartType.AUTOMATIC), true);

        InOrder order = inOrder(api);
        order.verify(api).delete(existing);
        order.verify(api, times(3)).openService(manager, "kube-proxy");
        order.verify(api).createService(manager, "kube-proxy", "winproxy", 2, COMMAND, List.of("hns"));
        verify(api, times(2)).close(stillThere);
        assertThat(sleeps).containsExactly(Duration.ofMillis(250), Duration.ofMillis(250));
    }

    @Test
    void replaceGivesUpWithAClearMessageWhenTheOldServiceStaysMarkedForDeletion() {
        List<Duration> sleeps = new ArrayList<>();
        ServiceRegistrar waiting = new ServiceRegistrar(api, Duration.ofSeconds(2), Duration.ofMillis(500),
                sleeps::add);
        when(api.openService(manager, "kube-proxy")).thenReturn(Optional.of(existing));
        when(api.isStopped(existing)).thenReturn(true);

        assertThatThrownBy(() -> waiting.install(definition(StartType.AUTOMATIC), true))
                .isInstanceOfSatisfying(RegistrationException.class, e -> {
                    assertThat(e.win32Error()).isEqualTo(RegistrationException.SERVICE_MARKED_FOR_DELETE);
                    assertThat(e.getMessage()).startsWith("service kube-proxy is marked for deletion but still "
                            + "exists after 2 s").contains("services.msc").doesNotContain("\n");
                });
        assertThat(sleeps).hasSize(4);
        verify(api, never()).createService(any(), anyString(), anyString(), anyInt(), anyString(), anyList());
        verify(api).close(manager);
    }

    @Test
    void aCreateThatStillFindsTheNameMarkedForDeletionGetsTheSameClearMessage() {
        when(api.createService(eq(manager), anyString(), anyString(), anyInt(), anyString(), anyList()))
                .thenThrow(new RegistrationException("CreateService(kube-proxy) failed with Win32 error 1072",
                        RegistrationException.SERVICE_MARKED_FOR_DELETE));

        assertThatThrownBy(() -> registrar.install(definition(StartType.AUTOMATIC), false))
                .isInstanceOf(RegistrationException.class).hasMessageContaining("is marked for deletion");
    }

    @Test
    void replaceRefusesARunningService() {
        when(api.openService(manager, "kube-proxy")).thenReturn(Optional.of(existing));
        when(api.isStopped(existing)).thenReturn(false);

        assertThatThrownBy(() -> registrar.install(definition(StartType.AUTOMATIC), true))
                .hasMessageContaining("service kube-proxy is running; stop it before replacing it");
        verify(api, never()).delete(any());
        verify(api, never()).createService(any(), anyString(), anyString(), anyInt(), anyString(), anyList());
    }

    @Test
    void aFailedConfigurationStepDeletesTheHalfConfiguredService() {
        doThrow(new RegistrationException("ChangeServiceConfig2(failure actions) failed", 5))
                .when(api).setFailureActions(eq(created), anyList(), anyInt());

        assertThatThrownBy(() -> registrar.install(definition(StartType.AUTOMATIC), false))
                .isInstanceOf(RegistrationException.class).hasMessageContaining("failure actions");

        InOrder order = inOrder(api);
        order.verify(api).delete(created);
        order.verify(api).close(created);
        order.verify(api).close(manager);
        verify(api, never()).setFailureActionsOnNonCrashFailures(any(), anyBoolean());
    }

    @Test
    void aFailedRollbackIsAttachedToTheOriginalError() {
        RegistrationException original = new RegistrationException("ChangeServiceConfig2(description) failed", 87);
        doThrow(original).when(api).setDescription(created, "programs HNS");
        doThrow(new RegistrationException("DeleteService(service) failed", 5)).when(api).delete(created);

        assertThatThrownBy(() -> registrar.install(definition(StartType.AUTOMATIC), false))
                .isSameAs(original);
        assertThat(original.getSuppressed()).hasSize(1);
        verify(api).close(created);
    }

    @Test
    void customRecoveryDelaysAndResetPeriodReachTheScm() {
        ServiceDefinition aks = new ServiceDefinition("kubeproxy", null, "", COMMAND, StartType.MANUAL, List.of(),
                new RecoveryActions(List.of(Duration.ofSeconds(60), Duration.ofSeconds(60), Duration.ofSeconds(60)),
                        Duration.ofSeconds(900), true));
        when(api.openService(manager, "kubeproxy")).thenReturn(Optional.empty());

        registrar.install(aks, false);

        verify(api).createService(manager, "kubeproxy", "kubeproxy", 3, COMMAND, List.of());
        verify(api, never()).setDescription(any(), anyString());
        verify(api).setFailureActions(created, List.of(60_000, 60_000, 60_000), 900);
    }

    @Test
    void uninstallDeletesAStoppedServiceAndClosesItsHandles() {
        when(api.openService(manager, "kube-proxy")).thenReturn(Optional.of(existing));
        when(api.isStopped(existing)).thenReturn(true);

        assertThat(registrar.uninstall("kube-proxy")).isTrue();

        verify(api).delete(existing);
        verify(api).close(existing);
        verify(api).close(manager);
    }

    @Test
    void uninstallOfAMissingServiceReportsFalse() {
        assertThat(registrar.uninstall("kube-proxy")).isFalse();
        verify(api, never()).delete(any());
        verify(api, times(1)).close(manager);
    }

    @Test
    void uninstallRefusesARunningService() {
        when(api.openService(manager, "kube-proxy")).thenReturn(Optional.of(existing));

        assertThatThrownBy(() -> registrar.uninstall("kube-proxy")).hasMessageContaining("is running");
        verify(api, never()).delete(any());
        verify(api).close(existing);
    }
}
