package io.winproxy.agent.zpages;

import io.winproxy.agent.health.HttpRequest;
import io.winproxy.agent.health.HttpResponse;
import io.winproxy.agent.config.FeatureGates;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.health.HttpResponses;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * The component pages kube-proxy v1.33 mounts on its metrics server: {@code /healthz} (the generic {@code ok},
 * its {@code ping} check counted as an SLI), {@code /metrics/slis} ({@link HealthcheckSlis}; DELETE resets),
 * {@code /statusz} with the {@code ComponentStatusz} gate and {@code /flagz} with {@code ComponentFlagz} (404 when
 * the gate is off, 406 when the client does not accept text/plain, as component-base). Thread-safe.
 */
public final class ComponentPages {
    /** The component name the pages show. */
    static final String COMPONENT = "kube-proxy";
    static final String NOT_ACCEPTABLE = "media type not acceptable, must be: text/plain";

    private final boolean statusz;
    private final boolean flagz;
    private final Map<String, String> flags;
    private final Instant started;
    private final String runtimeVersion;
    private final String binaryVersion;
    private final String emulationVersion;
    private final Clock clock;
    private final RandomGenerator random;
    private final HealthcheckSlis slis = new HealthcheckSlis();
    /** The overlay source VIP and where it comes from, for /statusz ("" until known, or on l2bridge). */
    private volatile String sourceVip = "";
    /** The /flagz text: component-base renders it once, with one delimiter. */
    private final String flagzText;

    ComponentPages(boolean statusz, boolean flagz, Map<String, String> flags, Instant started,
                   String runtimeVersion, String kubernetesVersion, Clock clock, RandomGenerator random) {
        this.statusz = statusz;
        this.flagz = flagz;
        this.flags = Map.copyOf(flags);
        this.started = started;
        this.runtimeVersion = runtimeVersion;
        String bare = kubernetesVersion.replaceFirst("^v", "");
        this.binaryVersion = bare;
        this.emulationVersion = bare.replaceFirst("^(\\d+\\.\\d+).*$", "$1");
        this.clock = clock;
        this.random = random;
        this.flagzText = ZPageText.flagz(COMPONENT, this.flags, ZPageText.delimiter(random));
    }

    /** The pages of this process for the effective configuration (its gates decide /statusz and /flagz). */
    public static ComponentPages of(ProxyConfig config, String kubernetesVersion) {
        FeatureGates gates = config.featureGates();
        return new ComponentPages(enabled(gates, "ComponentStatusz"), enabled(gates, "ComponentFlagz"),
                EffectiveFlags.of(config), Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime()),
                "java" + System.getProperty("java.version"), kubernetesVersion, Clock.systemDefaultZone(),
                RandomGenerator.getDefault());
    }

    private static boolean enabled(FeatureGates gates, String gate) {
        return gates.statuses().stream().filter(s -> s.name().equals(gate)).anyMatch(FeatureGates.Status::enabled);
    }

    /** Sets the {@code Source VIP} line of /statusz, e.g. {@code 10.244.1.2 (assigned by HNS)}; "" removes it. */
    public void sourceVip(String text) {
        sourceVip = text == null ? "" : text;
    }

    /** The health-check SLIs (for tests and other health endpoints). */
    public HealthcheckSlis slis() {
        return slis;
    }

    /**
     * Answers the request when its path is one of these pages.
     *
     * @return null for any other path (or a gated page whose gate is off)
     */
    public HttpResponse handle(HttpRequest request) {
        switch (request.path()) {
            case "/healthz" -> {
                slis.observe("ping", "healthz", true);
                return HttpResponses.of(200, HttpResponses.TEXT, "ok", Map.of());
            }
            case "/metrics/slis" -> {
                if ("DELETE".equalsIgnoreCase(request.method())) {
                    slis.reset();
                    return HttpResponses.of(200, HttpResponses.TEXT, "metrics reset\n", Map.of());
                }
                return HttpResponses.of(200, "text/plain; version=0.0.4; charset=utf-8", slis.exposition(), Map.of());
            }
            case "/statusz" -> {
                return statusz ? text(request, ZPageText.statusz(COMPONENT, started, clock.instant(), clock.getZone(),
                        runtimeVersion, binaryVersion, emulationVersion, ZPageText.delimiter(random), sourceVip))
                        : null;
            }
            case "/flagz" -> {
                return flagz ? text(request, flagzText) : null;
            }
            default -> {
                return null;
            }
        }
    }

    private static HttpResponse text(HttpRequest request, String body) {
        if (!acceptsText(request.accept())) {
            return HttpResponses.of(406, HttpResponses.TEXT, NOT_ACCEPTABLE + "\n", Map.of());
        }
        return HttpResponses.of(200, HttpResponses.TEXT, body, Map.of());
    }

    /** component-base's check: no Accept header, or one that allows text/plain. */
    static boolean acceptsText(String accept) {
        if (accept == null || accept.isBlank()) {
            return true;
        }
        for (String part : accept.split(",")) {
            String type = part.split(";", 2)[0].trim();
            if (type.equals("text/plain") || type.equals("text/*") || type.equals("*/*")) {
                return true;
            }
        }
        return false;
    }
}
