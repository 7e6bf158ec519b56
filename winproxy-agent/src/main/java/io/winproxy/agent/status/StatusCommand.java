package io.winproxy.agent.status;

import io.winproxy.agent.cli.CliContext;
import io.winproxy.agent.cli.OfflineInputs;
import io.winproxy.agent.cli.OfflineModel;
import io.winproxy.agent.cli.OutputFormat;
import io.winproxy.agent.cli.RootCommand;
import io.winproxy.agent.cli.UsageException;
import io.winproxy.agent.config.ConfigException;
import io.winproxy.agent.config.ProxyConfig;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code winproxy status [NAMESPACE/NAME] [-o text|json]}: per Service port on this node, its frontends, state,
 * backends, HNS load balancers, programming times and last error. Asks the running agent first (its metrics server,
 * {@link StatusEndpoint}); when none answers, or the cluster is given as files, computes the same from the inputs
 * {@code plan} reads (the API server or {@code --manifests}/{@code --example-cluster}, HNS or {@code --hns-state}, the
 * journal in {@code --state-dir}). The first line (text) or {@code source}/{@code from} (json) says which. Changes
 * nothing.
 */
@Command(name = "status", description = "Show the state of each Service port on this node: programmed, pending, "
        + "failed (with the HNS error decoded) or not programmed (and why); asks the running agent, else computes it.")
public final class StatusCommand implements Callable<Integer> {

    @ParentCommand
    RootCommand root;

    @Mixin
    OfflineInputs inputs = new OfflineInputs();

    @Parameters(index = "0", arity = "0..1", paramLabel = "NAMESPACE/NAME",
            description = "One Service (default: every Service).")
    String service;

    @Option(names = {"-o", "--output"}, paramLabel = "json|text", description = "Output format (default: text).")
    OutputFormat output = OutputFormat.text;

    @Option(names = "--agent", paramLabel = "HOST:PORT",
            description = "Where to ask the running agent (default: the configuration's metricsBindAddress, on "
                    + "loopback when it binds every address).")
    String agent;

    @Option(names = "--no-agent", description = "Compute the status even when an agent runs.")
    boolean noAgent;

    @Override
    public Integer call() throws ConfigException {
        CliContext context = root.context();
        if (service != null && !StatusReport.isServiceName(service)) {
            throw new UsageException("NAMESPACE/NAME: expected a Service as namespace/name, got '" + service + "'");
        }
        StatusReport.Document doc = null;
        String asked = null;
        if (!noAgent && (agent != null || !inputs.offlineCluster())) {
            ProxyConfig config = inputs.config(context);
            Optional<String> address = agent != null ? Optional.of(agent)
                    : AgentStatusClient.loopbackOf(config.metricsBindAddress());
            if (address.isPresent()) {
                AgentStatusClient client = new AgentStatusClient();
                doc = client.fetch(address.get(), service).orElse(null);
                asked = client.problem();
            }
        }
        if (doc == null) {
            OfflineModel model = inputs.compute(context);
            SyncView view = new SyncView(SyncView.COMPUTED, model.nodeName(), true, model.state(),
                    model.snapshot().desired(), model.snapshot().families(), model.journal(), model.plan().steps(),
                    null, null, Instant.now());
            doc = StatusReport.build(view, service, Integer.MAX_VALUE, null).from("computed without an agent"
                    + (asked == null ? "" : " (" + asked + ")") + " from " + model.inputs());
        }
        if (doc.servicePorts().isEmpty() && service != null) {
            context.err().println("winproxy: status: no ports of " + service + " (no such Service, or one winproxy does"
                    + " not proxy: headless, ExternalName or with a service-proxy-name)");
        }
        if (output == OutputFormat.json) {
            context.out().println(doc.json());
        } else {
            String first = (doc.source().equals(SyncView.AGENT) ? "Status from " : "Status ") + doc.from()
                    + "; node " + doc.node() + ", " + doc.generatedAt();
            context.out().print(StatusText.render(first, doc));
        }
        return 0;
    }
}
