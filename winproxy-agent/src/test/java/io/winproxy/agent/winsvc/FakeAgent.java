package io.winproxy.agent.winsvc;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A scriptable agent: becomes ready when told, returns a chosen code when stopped or when told to fail. */
final class FakeAgent implements ServiceAgent {
    final CountDownLatch started = new CountDownLatch(1);
    final AtomicInteger stopRequests = new AtomicInteger();
    private final CountDownLatch becomeReady = new CountDownLatch(1);
    private final CountDownLatch end = new CountDownLatch(1);
    private volatile int code;
    private volatile RuntimeException toThrow;
    private volatile boolean ignoreStop;
    private volatile CountDownLatch stopBlocker;

    void ready() {
        becomeReady.countDown();
    }

    void ignoreStop() {
        ignoreStop = true;
    }

    /** Makes {@link #requestStop} block until the returned latch is counted down. */
    CountDownLatch blockStop() {
        stopBlocker = new CountDownLatch(1);
        return stopBlocker;
    }

    /** Waits until {@link #requestStop} has been called {@code count} times. */
    void awaitStopRequests(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (stopRequests.get() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("requestStop was called " + stopRequests.get() + " times, not " + count);
            }
            Thread.sleep(2);
        }
    }

    /** Makes {@link #run} return {@code exitCode} without a stop request. */
    void exit(int exitCode) {
        code = exitCode;
        end.countDown();
    }

    void fail(RuntimeException exception) {
        toThrow = exception;
        end.countDown();
    }

    @Override
    public int run(Runnable ready) throws Exception {
        started.countDown();
        while (!end.await(5, TimeUnit.MILLISECONDS)) {
            if (becomeReady.getCount() == 0) {
                ready.run();
            }
        }
        if (toThrow != null) {
            throw toThrow;
        }
        return code;
    }

    @Override
    public void requestStop() {
        stopRequests.incrementAndGet();
        CountDownLatch blocker = stopBlocker;
        if (blocker != null) {
            try {
                blocker.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (!ignoreStop) {
            exit(0);
        }
    }
}
