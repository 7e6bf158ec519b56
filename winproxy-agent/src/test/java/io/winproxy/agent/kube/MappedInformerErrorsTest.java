package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.winproxy.agent.fatal.FatalErrors;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 17.6 for the informers: the Kubernetes client catches what its list and watch threads throw and hands it to
 * the informer's exception handler as a failure to retry. An OutOfMemoryError there was logged as "Cannot reach the
 * API server" and retried, leaving the agent half dead; it must end the process as every other Error does.
 */
class MappedInformerErrorsTest {
    private final List<Integer> halts = new ArrayList<>();
    private FatalErrors previous;

    @BeforeEach
    void recordHalts() {
        previous = FatalErrors.replaceProcessHandler(new FatalErrors(new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8), halts::add));
    }

    @AfterEach
    void restore() {
        FatalErrors.replaceProcessHandler(previous);
    }

    @Test
    void anOutOfMemoryErrorThatTheClientWrappedAsAListFailureEndsTheProcess() {
        MappedInformer.endIfError(new KubernetesClientException("listing Services",
                new RuntimeException("wrapped", new OutOfMemoryError("Java heap space"))));
        assertThat(halts).containsExactly(FatalErrors.EXIT_CODE);
    }

    @Test
    void anApiOutageIsNotAnErrorAndIsRetried() {
        MappedInformer.endIfError(new KubernetesClientException("listing Services", new ConnectException("refused")));
        MappedInformer.endIfError(null);
        assertThat(halts).isEmpty();
    }
}
