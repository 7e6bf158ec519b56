package io.winproxy.agent.winsvc;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * A Mockito {@link ScmApi} that behaves like the SCM at its edge: {@code runDispatcher} calls the service main on
 * a thread of its own and blocks until it returns, the registered control handler is captured so the test can send
 * controls, and every {@code SetServiceStatus} is recorded in order.
 */
final class FakeScm {
    final ScmApi api = mock(ScmApi.class);
    final List<ServiceStatus> statuses = new CopyOnWriteArrayList<>();
    final AtomicReference<ScmApi.ControlHandler> handler = new AtomicReference<>();
    final ScmApi.StatusHandle handle = new ScmApi.StatusHandle() { };
    private final CountDownLatch registered = new CountDownLatch(1);
    /** The arguments the SCM passes to the service main function: the first is the service's real name. */
    volatile String[] serviceArgs = {"kube-proxy"};

    FakeScm() {
        doAnswer(invocation -> {
            ScmApi.ServiceMain main = invocation.getArgument(1);
            Thread thread = new Thread(() -> main.serviceMain(serviceArgs), "scm-service-main");
            thread.start();
            thread.join();
            return null;
        }).when(api).runDispatcher(anyString(), any());
        when(api.registerControlHandler(anyString(), any())).thenAnswer(invocation -> {
            handler.set(invocation.getArgument(1));
            registered.countDown();
            return handle;
        });
        doAnswer(invocation -> {
            statuses.add(invocation.getArgument(1));
            return null;
        }).when(api).setStatus(any(), any());
    }

    static ServiceTimings fastTimings() {
        return new ServiceTimings(Duration.ofMillis(200), Duration.ofMillis(20), Duration.ofSeconds(5),
                Duration.ofSeconds(5));
    }

    CompletableFuture<Integer> start(WindowsServiceHost host, ServiceAgent agent) {
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        Thread main = new Thread(() -> {
            try {
                exit.complete(host.run("kube-proxy", agent));
            } catch (RuntimeException e) {
                exit.completeExceptionally(e);
            }
        }, "test-main");
        main.start();
        return exit;
    }

    int send(int control) throws InterruptedException {
        if (!registered.await(5, TimeUnit.SECONDS)) {
            throw new AssertionError("the service never registered a control handler");
        }
        return handler.get().control(control, 0);
    }

    void awaitState(ServiceState state) throws InterruptedException {
        await(() -> statuses.stream().anyMatch(s -> s.state() == state), "never reported " + state);
    }

    /** Waits until at least {@code count} statuses were reported (5 s at most). */
    void awaitStatuses(int count) throws InterruptedException {
        await(() -> statuses.size() >= count, "fewer than " + count + " statuses reported");
    }

    /** Polls {@code done} for 5 s at most; fails with {@code failure} and the statuses reported so far. */
    private void await(BooleanSupplier done, String failure) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(failure + "; reported " + statuses);
            }
            Thread.sleep(5);
        }
    }

    List<ServiceState> states() {
        return statuses.stream().map(ServiceStatus::state).distinct().toList();
    }

    ServiceStatus last() {
        return statuses.get(statuses.size() - 1);
    }
}
