package io.winproxy.agent.cli;

import io.winproxy.agent.config.ConfigException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code winproxy plan [inputs] -o json|text}: the desired load balancers and remote endpoints for a cluster, and the
 * HNS operations that would program them on the given host. Changes nothing.
 */
@Command(name = "plan", description = "Compute the desired HNS state and the plan against an HNS state; "
        + "changes nothing.")
public final class PlanCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    @Mixin
    OfflineInputs inputs = new OfflineInputs();

    @Option(names = {"-o", "--output"}, paramLabel = "json|text", description = "Output format (default: text).")
    OutputFormat output = OutputFormat.text;

    @Override
    public Integer call() throws ConfigException {
        OfflineModel model = inputs.compute(root.context());
        if (output == OutputFormat.json) {
            root.context().out().println(PlanOutput.jsonText(model.snapshot().desired(), model.plan()));
        } else {
            root.context().out().print(PlanOutput.text(model.snapshot().desired(), model.plan()));
        }
        return 0;
    }
}
