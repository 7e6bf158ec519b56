package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Indexer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A relist after an API outage replaces an informer that may still be retrying its list; fabric8 ends that one's
 * start with "informer manually stopped before starting" inside {@code stop()}. That is the relist at work, not an
 * informer that stopped: no ERROR line on every recovery from an outage. An informer that does stop by itself still
 * says so.
 */
class MappedInformerRelistTest {
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Deque<CompletableFuture<Void>> starts = new ArrayDeque<>();

    @BeforeEach
    void capture() {
        log.start();
        ((Logger) LoggerFactory.getLogger(MappedInformer.class)).addAppender(log);
    }

    @AfterEach
    void release() {
        ((Logger) LoggerFactory.getLogger(MappedInformer.class)).detachAppender(log);
    }

    /** An informer whose list never completes and whose stop() fails its start at once, as fabric8's does. */
    @SuppressWarnings("unchecked")
    private SharedIndexInformer<Service> listingForever() {
        SharedIndexInformer<Service> informer = mock(SharedIndexInformer.class);
        CompletableFuture<Void> started = new CompletableFuture<>();
        starts.add(started);
        when(informer.start()).thenReturn(started);
        when(informer.getStore()).thenReturn(mock(Indexer.class));
        doAnswer(call -> started.completeExceptionally(
                new KubernetesClientException("informer manually stopped before starting"))).when(informer).stop();
        return informer;
    }

    private MappedInformer<Service, String> mapped() {
        return new MappedInformer<>("Services", this::listingForever, Service::new, () -> { },
                s -> Optional.of("x"), (a, b) -> { }, () -> { }, new ApiServerMonitor("http://127.0.0.1:1"));
    }

    private List<ILoggingEvent> errors() {
        return log.list.stream().filter(e -> e.getLevel() == Level.ERROR).toList();
    }

    @Test
    void aRelistThatStopsAnInformerStillListingLogsNoError() {
        MappedInformer<Service, String> informer = mapped();
        informer.start();

        informer.relist();

        assertThat(starts).hasSize(2);
        assertThat(starts.peekFirst()).isCompletedExceptionally();
        assertThat(errors()).isEmpty();
        informer.close();
    }

    @Test
    void anInformerThatStopsByItselfIsStillAnError() {
        MappedInformer<Service, String> informer = mapped();
        informer.start();

        starts.peekLast().completeExceptionally(new KubernetesClientException("stopped"));

        assertThat(errors()).singleElement()
                .satisfies(e -> assertThat(e.getFormattedMessage()).isEqualTo("Informer stopped"));
        informer.close();
    }
}
