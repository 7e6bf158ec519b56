package io.winproxy.agent.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.io.File;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Collection;
import java.util.function.Function;
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
    static final Duration WATCH_RECONNECT_INTERVAL = Duration.ofSeconds(1);

    private final String userAgent;
    private final Function<String, String> env;
    private final Supplier<Collection<String>> defaultKubeconfigs;

    public KubeClientFactory() {
        this("winproxy");
    }

    /** @param userAgent sent as the HTTP User-Agent, e.g. "winproxy/0.1.0" */
    public KubeClientFactory(String userAgent) {
        this(userAgent, System::getenv, Config::getKubeconfigFilenames);
    }

    /**
     * @param env                the process environment (for {@code KUBERNETES_SERVICE_HOST})
     * @param defaultKubeconfigs where a kubeconfig is looked for when none is given ({@code KUBECONFIG} or
     *                           {@code ~/.kube/config})
     */
    KubeClientFactory(String userAgent, Function<String, String> env, Supplier<Collection<String>> defaultKubeconfigs) {
        this.userAgent = userAgent;
        this.env = env;
        this.defaultKubeconfigs = defaultKubeconfigs;
    }

    /**
     * Builds a client. Nothing is sent to the API server here; connection problems surface on first use.
     *
     * @throws KubeClientException when the kubeconfig cannot be read or no configuration can be found, with a
     *                             one-line message naming the flag
     */
    public KubernetesClient create(KubeClientSettings settings) {
        Config config = loadConfig(settings);
        config.setConnectionTimeout((int) CONNECT_TIMEOUT.toMillis());
        config.setRequestTimeout((int) REQUEST_TIMEOUT.toMillis());
        config.setWatchReconnectInterval((int) WATCH_RECONNECT_INTERVAL.toMillis());
        config.setWatchReconnectLimit(-1);
        // No hidden per-request retries (fabric8's default is 10 with exponential backoff, about 100 s of silence
        // before an unreachable API server is reported). The informers retry for ever with their own backoff and
        // log each failure (MappedInformer), as client-go's reflector does; events are best effort.
        config.setRequestRetryBackoffLimit(0);
        config.setUserAgent(userAgent);
        if (settings.contentType() != null && settings.contentType().contains("protobuf")) {
            logger.debug("The fabric8 client speaks JSON; content type {} is served as JSON", settings.contentType());
        }
        KubernetesClientBuilder builder = new KubernetesClientBuilder()
                .withConfig(config)
                .withHttpClientFactory(new JdkHttpClientFactory());
        if (settings.qps() > 0) {
            TokenBucket bucket = new TokenBucket(settings.qps(), settings.burst(), System::nanoTime);
            builder.withHttpClientBuilderConsumer(
                    b -> b.addOrReplaceInterceptor(RateLimitInterceptor.NAME, new RateLimitInterceptor(bucket)));
        }
        logger.info("Kubernetes API server {} (configuration from {}, qps {}, burst {})", redact(config.getMasterUrl()),
                describeSource(settings), settings.qps(), settings.burst());
        return builder.build();
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
                        + firstLine(e.getMessage()), e);
            }
        } else if (settings.hasMaster()) {
            config = Config.empty();
        } else if (inCluster() || defaultKubeconfigExists()) {
            config = Config.autoConfigure(null);
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

    private boolean inCluster() {
        String host = env.apply("KUBERNETES_SERVICE_HOST");
        return host != null && !host.isBlank();
    }

    private boolean defaultKubeconfigExists() {
        Collection<String> files = defaultKubeconfigs.get();
        return files != null && files.stream().anyMatch(f -> f != null && new File(f).isFile());
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

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
