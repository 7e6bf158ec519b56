package io.winproxy.hns.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault settings, outages and rehydrating restarts belong to the emulated host: set through one emulator on a state
 * file, they apply to every other emulator (process) on that file.
 */
class EmulatorFaultControlTest {
    @TempDir
    Path dir;

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    private final Clock clock = new Clock() {
        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    };

    private HnsEmulator onFile(Path file) {
        return HnsEmulator.builder().stateFile(file).echo(EchoProfile.VERBATIM).clock(clock).build();
    }

    @Test
    void aFaultSetThroughOneEmulatorFailsTheOtherEmulatorsNextCallOnlyOnce() {
        Path file = dir.resolve("hns.json");
        EmulatorFixture agent = new EmulatorFixture(onFile(file));
        HnsEmulator operator = onFile(file);

        operator.faults().failNext(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER, 1, HResults.RPC_S_SERVER_UNAVAILABLE);

        assertThatThrownBy(() -> agent.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                agent.pod1.id()))).isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.isServiceUnavailable()).isTrue());
        assertThat(agent.hns.listLoadBalancerIds()).isEmpty();
        // Consumed once for the whole host, not once per process.
        operator.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.2", 80, 0, agent.pod1.id()));
        assertThat(agent.hns.faults().settings().failNext()).isEmpty();
        assertThat(agent.hns.listLoadBalancerIds()).hasSize(1);
    }

    @Test
    void faultSettingsSurviveACompactionAndAFreshEmulatorReadsThem() {
        Path file = dir.resolve("hns.json");
        HnsEmulator first = onFile(file);
        new EmulatorFixture(first);
        first.faults().failRandomly(0.25, 42, HResults.RPC_S_CALL_FAILED, Set.of(HnsCall.CREATE))
                .latency(HnsCall.DELETE, Duration.ofMillis(7));
        first.compactStateFile();

        FaultSettings read = onFile(file).faults().settings();

        assertThat(read.random()).isEqualTo(new FaultSettings.RandomFaults(0.25, 42, HResults.RPC_S_CALL_FAILED,
                Set.of(HnsCall.CREATE)));
        assertThat(read.latency(HnsCall.DELETE)).isEqualTo(Duration.ofMillis(7));
        assertThat(read.latency(HnsCall.CREATE)).isZero();
        first.faults().clear();
        assertThat(onFile(file).faults().settings()).isEqualTo(FaultSettings.NONE);
    }

    @Test
    void latencyOfOneCallKindDelaysOnlyThatKind() {
        EmulatorFixture f = new EmulatorFixture(HnsEmulator.builder().echo(EchoProfile.VERBATIM).build());
        Duration latency = Duration.ofMillis(500);
        f.hns.faults().latency(HnsCall.ENUMERATE, latency);
        // the first call of a JVM runs cold code (tens of milliseconds): warm it before timing
        f.hns.getLoadBalancer("6f1c3a0e-0000-4000-8000-000000000001");

        long start = System.nanoTime();
        f.hns.getLoadBalancer("6f1c3a0e-0000-4000-8000-000000000001");
        long open = System.nanoTime() - start;
        start = System.nanoTime();
        f.hns.listLoadBalancerIds();
        long enumerate = System.nanoTime() - start;

        assertThat(Duration.ofNanos(enumerate)).isGreaterThanOrEqualTo(latency);
        assertThat(Duration.ofNanos(open)).isLessThan(latency.dividedBy(2));
    }

    @Test
    void aWriteFailingWithRpcCallFailedIsCarriedOutBeforeItFails() {
        EmulatorFixture f = EmulatorFixture.create();
        f.hns.faults().failNext(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER, 1, HResults.RPC_S_CALL_FAILED);
        String id = "6f1c3a0e-0000-4000-8000-0000000000aa";

        assertThatThrownBy(() -> f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()).withId(id))).isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.RPC_S_CALL_FAILED));

        assertThat(f.hns.getLoadBalancer(id)).isPresent();
        // Retrying the same create with the same ID: the object exists already.
        assertThatThrownBy(() -> f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()).withId(id))).isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.ERROR_ALREADY_EXISTS));
    }

    @Test
    void duringARestartsDowntimeEveryCallFailsWithServiceNotActiveAndNothingIsNotFound() {
        EmulatorFixture f = new EmulatorFixture(onFile(dir.resolve("hns.json")));
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()));

        f.hns.restartHns(HnsRestart.DROP.withDown(Duration.ofSeconds(5)));

        for (Runnable call : new Runnable[] {f.hns::listLoadBalancerIds, () -> f.hns.getEndpoint(f.pod1.id()),
                () -> f.hns.getNetworkByName("winproxy-overlay"), () -> f.hns.deleteEndpoint(f.pod2.id())}) {
            assertThatThrownBy(call::run).isInstanceOfSatisfying(HnsException.class, e -> {
                assertThat(e.hresult()).isEqualTo(HResults.ERROR_SERVICE_NOT_ACTIVE);
                assertThat(e.isNotFound()).isFalse();
            });
        }
        now.set(now.get().plusSeconds(5));
        assertThat(f.hns.listLoadBalancerIds()).isEmpty();
        assertThat(f.hns.getEndpoint(f.pod2.id())).isPresent();
    }

    @Test
    void aRestartRehydratesTheDroppedObjectsWithTheirOldIdsAfterTheDelaySkippingIdsTakenMeanwhile() {
        Path file = dir.resolve("hns.json");
        EmulatorFixture f = new EmulatorFixture(onFile(file));
        HostComputeLoadBalancer a = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id(), f.remote.id()));
        HostComputeLoadBalancer b = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.2", 80, 0,
                f.pod1.id()));

        HnsEmulator operator = onFile(file);
        assertThat(operator.restartHns(HnsRestart.rehydratingAfter(Duration.ofSeconds(10))))
                .isEqualTo(new HnsRestart.Counts(2, 1));
        assertThat(f.hns.listLoadBalancerIds()).isEmpty();
        // The client re-creates b with its old ID before HNS restores it.
        HostComputeLoadBalancer recreated = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.2", 80, 0,
                f.pod2.id()).withId(b.id()));
        now.set(now.get().plusSeconds(9));
        assertThat(f.hns.listLoadBalancerIds()).containsExactly(b.id());

        now.set(now.get().plusSeconds(1));

        assertThat(f.hns.listLoadBalancerIds()).containsExactlyInAnyOrder(a.id(), b.id());
        assertThat(f.hns.getLoadBalancer(a.id())).contains(a);
        assertThat(f.hns.getLoadBalancer(b.id())).contains(recreated);
        assertThat(f.hns.getEndpoint(f.remote.id())).contains(f.remote);
        assertThat(operator.pendingRehydration()).isEmpty();
    }

    @Test
    void aRestartRehydratingOnCommandKeepsTheObjectsUntilTheCommand() {
        EmulatorFixture f = EmulatorFixture.create();
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.remote.id()));
        f.hns.restartHns(HnsRestart.rehydratingOnCommand());
        now.set(now.get().plus(Duration.ofDays(1)));

        assertThat(f.hns.listLoadBalancerIds()).isEmpty();
        assertThat(f.hns.pendingRehydration()).hasValueSatisfying(p -> {
            assertThat(p.loadBalancers()).containsExactly(lb);
            assertThat(p.endpoints()).extracting(HostComputeEndpoint::id).containsExactly(f.remote.id());
        });

        assertThat(f.hns.rehydrate()).isEqualTo(new HnsRestart.Counts(1, 1));
        assertThat(f.hns.getLoadBalancer(lb.id())).contains(lb);
        assertThat(f.hns.rehydrate()).isEqualTo(new HnsRestart.Counts(0, 0));
    }
}
