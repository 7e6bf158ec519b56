package io.winproxy.agent.cli;

import io.winproxy.agent.config.ConfigException;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.KubeProxyConfigurationFile;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.hns.HnsClient;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code winproxy [kube-proxy flags]}: runs the proxy until SIGTERM / Ctrl+C. {@code --write-config-to} writes the
 * effective configuration and exits; {@code --cleanup} is the {@code cleanup} command.
 */
@Command(name = "winproxy", mixinStandardHelpOptions = true, versionProvider = VersionCommand.Provider.class,
        description = "A drop-in replacement for kube-proxy's Windows kernelspace mode.",
        subcommands = {DemoCommand.class, PlanCommand.class, TraceCommand.class, HnsCommand.class,
                CleanupCommand.class, VersionCommand.class})
public final class RootCommand implements Callable<Integer> {
    private static final Logger logger = LoggerFactory.getLogger(RootCommand.class);

    private final CliContext context;

    @Mixin
    ProxyFlags flags = new ProxyFlags();

    @Mixin
    HnsHostOptions host = new HnsHostOptions();

    public RootCommand(CliContext context) {
        this.context = context;
    }

    public CliContext context() {
        return context;
    }

    @Override
    public Integer call() throws ConfigException, InterruptedException {
        ProxyConfig config = ConfigResolver.resolve(flags, context.env());
        config.warnings().forEach(w -> logger.warn("{}", w));
        if (config.writeConfigTo().isPresent()) {
            Path target = config.writeConfigTo().get();
            try {
                KubeProxyConfigurationFile.write(config, target);
            } catch (java.io.IOException e) {
                throw new IllegalStateException("--write-config-to: cannot write " + target + ": " + e.getMessage(), e);
            }
            context.out().println("Wrote the configuration to " + target);
            return 0;
        }
        if (config.cleanup()) {
            return CleanupCommand.cleanup(context, host, false);
        }
        String network = config.requireNetworkName();
        HnsClient hns = host.open();
        ProxyAgent agent = ProxyAgent.start(new ProxyAgent.Setup(config, hns, network,
                host.stateDir(context.env()), null, List.of(),
                LoadBalancerFeatures.of(config, hns.capabilities()), null, null));
        context.shutdown().onShutdown(agent::close);
        agent.awaitStop();
        return 0;
    }
}
