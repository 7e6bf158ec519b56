package io.winproxy.agent.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.winproxy.agent.Messages;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the fabric8 {@link KubernetesClient} the agent uses: from a kubeconfig file, a master URL, or the in-cluster
 * service account, always over the JDK HTTP client, with client-side QPS/burst limiting and timeouts suited to a
 * node agent (informer watches reconnect for ever).
 *
 * <p>Logs the API server URL and which source the configuration came from; never tokens, passwords, client keys or
 * the kubeconfig's content.
 */
public final class KubeClientFactory {
    private static final Logger logger = LoggerFactory.getLogger(KubeClientFactory.class);

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /**
     * The base of fabric8's reconnect backoff for informer lists and watches is drawn per client from this range.
     * fabric8 doubles it after each failure up to 2^5 times the base (no jitter of its own), so the longest wait is
     * 32 x base: at most 30 s, as client-go's reflector caps it. Drawing the base at random spreads the reconnects of
     * nodes that lost the API server at the same moment, instead of having them all retry in lockstep.
     */
    static final Duration MIN_WATCH_RECONNECT_INTERVAL = Duration.ofMillis(600);
    static final Duration MAX_WATCH_RECONNECT_INTERVAL = Duration.ofMillis(937);
    /** fabric8's backoff exponent cap ({@code ExponentialBackoffIntervalCalculator}): at most 2^5 times the base. */
    static final int FABRIC8_MAX_BACKOFF_FACTOR = 32;

    private final String userAgent;
    private final Function<String, String> env;
    private final Supplier<Collection<String>> defaultKubeconfigs;
    private final LongUnaryOperator random;

    public KubeClientFactory() {
        this("winproxy");
    }

    /** @param userAgent sent as the HTTP User-Agent, e.g. "winproxy/0.1.0" */
    public KubeClientFactory(String userAgent) {
        this(userAgent, System::getenv, Config::getKubeconfigFilenames,
                bound -> ThreadLocalRandom.current().nextLong(bound));
    }

    /**
     * @param env                the process environment (for {@code KUBERNETES_SERVICE_HOST})
     * @param defaultKubeconfigs where a kubeconfig is looked for when none is given ({@code KUBECONFIG} or
     *                           {@code ~/.kube/config})
     */
    KubeClientFactory(String userAgent, Function<String, String> env, Supplier<Collection<String>> defaultKubeconfigs) {
        this(userAgent, env, defaultKubeconfigs, bound -> ThreadLocalRandom.current().nextLong(bound));
    }

    /** @param random returns a number in {@code [0, bound)} (the jitter of the reconnect backoff) */
    KubeClientFactory(String userAgent, Function<String, String> env, Supplier<Collection<String>> defaultKubeconfigs,
                      LongUnaryOperator random) {
        this.userAgent = userAgent;
        this.env = env;
        this.defaultKubeconfigs = defaultKubeconfigs;
        this.random = random;
    }

    /**
     * Builds a client. Nothing is sent to the API server here; connection problems surface on first use.
     *
     * @throws KubeClientException when the kubeconfig cannot be read or no configuration can be found, with a
     *                             one-line message naming the flag
     */
    public KubernetesClient create(KubeClientSettings settings) {
        return create(settings, ApiRequestListener.NOOP);
    }

    /**
     * As {@link #create(KubeClientSettings)}, telling {@code requests} about every request the client sends (its
     * status, or the failure when no answer came, and its latency): the source of the {@code rest_client_*} metrics
     * and of {@link ApiServerMonitor}'s outage detection.
     *
     * @throws KubeClientException as {@link #create(KubeClientSettings)}
     */
    public KubernetesClient create(KubeClientSettings settings, ApiRequestListener requests) {
        Config config = loadConfig(settings);
        config.setConnectionTimeout((int) CONNECT_TIMEOUT.toMillis());
        config.setRequestTimeout((int) REQUEST_TIMEOUT.toMillis());
        config.setWatchReconnectInterval((int) watchReconnectInterval().toMillis());
        config.setWatchReconnectLimit(-1);
        // No hidden per-request retries (fabric8's default is 10 with exponential backoff, about 100 s of silence
        // before an unreachable API server is reported). The informers retry for ever with their own backoff and
        // log each failure (MappedInformer), as client-go's reflector does; events are best effort.
        config.setRequestRetryBackoffLimit(0);
        config.setUserAgent(userAgent);
        if (settings.contentType() != null && settings.contentType().contains("protobuf")) {
            logger.atDebug().setMessage("The fabric8 client speaks JSON; the content type is served as JSON")
                    .addKeyValue("contentType", settings.contentType()).log();
        }
        KubernetesClientBuilder builder = new KubernetesClientBuilder()
                .withConfig(config)
                .withHttpClientFactory(new MeteredHttpClientFactory(requests, System::nanoTime));
        if (settings.qps() > 0) {
            TokenBucket bucket = new TokenBucket(settings.qps(), settings.burst(), System::nanoTime);
            builder.withHttpClientBuilderConsumer(
                    b -> b.addOrReplaceInterceptor(RateLimitInterceptor.NAME, new RateLimitInterceptor(bucket)));
        }
        logger.atInfo().setMessage("Kubernetes API server").addKeyValue("server", redact(config.getMasterUrl()))
                .addKeyValue("configuration", describeSource(settings)).addKeyValue("qps", settings.qps())
                .addKeyValue("burst", settings.burst()).log();
        return builder.build();
    }

    /** A base interval in {@code [MIN, MAX]_WATCH_RECONNECT_INTERVAL}, drawn at random. */
    Duration watchReconnectInterval() {
        long min = MIN_WATCH_RECONNECT_INTERVAL.toMillis();
        long span = MAX_WATCH_RECONNECT_INTERVAL.toMillis() - min + 1;
        return Duration.ofMillis(min + random.applyAsLong(span));
    }

    private Config loadConfig(KubeClientSettings settings) {
        Config config;
        if (settings.hasKubeconfig()) {
            File file = new File(settings.kubeconfig());
            if (!file.isFile() || !file.canRead()) {
                throw new KubeClientException("--kubeconfig: cannot read file " + settings.kubeconfig());
            }
            try {
                config = Config.fromKubeconfig(file);
            } catch (RuntimeException e) {
                throw new KubeClientException("--kubeconfig: invalid kubeconfig " + settings.kubeconfig() + ": "
                        + Messages.firstLine(e.getMessage(), "unreadable"), e);
            }
            useTokenFile(config, List.of(file));
        } else if (settings.hasMaster()) {
            config = Config.empty();
        } else if (inCluster() || defaultKubeconfigExists()) {
            config = Config.autoConfigure(null);
            // a current context means fabric8 took a default kubeconfig (it prefers one to the service account)
            useTokenFile(config, existingDefaultKubeconfigs());
        } else {
            throw new KubeClientException("--kubeconfig/--master: neither is set and this is not a cluster pod "
                    + "(KUBERNETES_SERVICE_HOST is unset and there is no default kubeconfig)");
        }
        if (settings.hasMaster()) {
            config.setMasterUrl(settings.master());
        }
        if (config.getMasterUrl() == null || config.getMasterUrl().isBlank()) {
            throw new KubeClientException("--kubeconfig/--master: no API server configured and not running in a "
                    + "cluster");
        }
        return config;
    }

    /**
     * Authenticates with the kubeconfig user's {@code tokenFile}, read again as it rotates, when the current context's
     * user names one ({@link KubeconfigTokenFile}); fabric8 itself ignores the field.
     */
    private void useTokenFile(Config config, List<File> kubeconfigs) {
        KubeconfigTokenFile.find(config, kubeconfigs, env).ifPresent(path -> {
            try {
                config.setOauthTokenProvider(new FileTokenProvider(path, System::nanoTime));
            } catch (IOException e) {
                throw new KubeClientException("--kubeconfig: cannot read the token file " + path + ": "
                        + Messages.firstLine(e.getMessage(), e.getClass().getSimpleName()), e);
            }
            logger.atInfo().setMessage("Authenticating with the kubeconfig user's token file, read again as it "
                    + "changes").addKeyValue("tokenFile", path).log();
        });
    }

    private List<File> existingDefaultKubeconfigs() {
        Collection<String> files = defaultKubeconfigs.get();
        if (files == null) {
            return List.of();
        }
        return files.stream().filter(f -> f != null && new File(f).isFile()).map(File::new).toList();
    }

    private boolean inCluster() {
        String host = env.apply("KUBERNETES_SERVICE_HOST");
        return host != null && !host.isBlank();
    }

    private boolean defaultKubeconfigExists() {
        return !existingDefaultKubeconfigs().isEmpty();
    }

    private static String describeSource(KubeClientSettings settings) {
        if (settings.hasKubeconfig()) {
            return settings.hasMaster() ? "--kubeconfig with --master override" : "--kubeconfig";
        }
        return settings.hasMaster() ? "--master" : "in-cluster service account or default kubeconfig";
    }

    /** The URL without user info, query or fragment: what may be logged. */
    static String redact(String url) {
        try {
            URI uri = URI.create(url);
            return new URI(uri.getScheme(), null, uri.getHost(), uri.getPort(), uri.getPath(), null, null).toString();
        } catch (IllegalArgumentException | URISyntaxException | NullPointerException e) {
            return "(unparsable URL)";
        }
    }
}
