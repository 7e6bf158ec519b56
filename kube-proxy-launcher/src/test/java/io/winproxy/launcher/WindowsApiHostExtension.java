package io.winproxy.launcher;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.opentest4j.TestAbortedException;

/**
 * One {@link WindowsApiHost} for a test class, registered as a static {@code @RegisterExtension} field: opened before
 * the class's {@code @BeforeAll} methods run and closed after its {@code @AfterAll} methods. Where no host can be had
 * (Wine cannot be fetched or run), {@link #host()} is null and every test is reported skipped with that one line.
 */
final class WindowsApiHostExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {
    private WindowsApiHost host;
    /** Why there is no host; null when there is one. */
    private String unavailable;

    /** The open host, or null when there is none (then each test is skipped before its {@code @BeforeEach}). */
    WindowsApiHost host() {
        return host;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException, InterruptedException {
        try {
            host = WindowsApiHost.open();
        } catch (TestAbortedException noHost) {
            unavailable = noHost.getMessage();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        assumeTrue(unavailable == null, unavailable);
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException, InterruptedException {
        if (host != null) {
            host.close();
            host = null;
        }
    }
}
