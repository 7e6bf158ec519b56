package io.winproxy.agent.cli;

import io.winproxy.agent.config.ConfigException;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.dataplane.HnsCleanup;
import io.winproxy.agent.logging.LoggingSetup;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.state.InstanceLock;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code winproxy cleanup [--all]}: removes the load balancers and remote endpoints winproxy owns and reports the
 * unowned ones it leaves; {@code --all} removes every load balancer (migration from kube-proxy). Takes the proxy's
 * flags and {@code --config} too, so that the proxy's command line with {@code cleanup} in front works. Holds the
 * state directory's instance lock while it runs (refused beside a running agent). Exit 1 when some object could not
 * be removed.
 */
@Command(name = "cleanup", description = "Remove the HNS load balancers and remote endpoints winproxy owns.")
public final class CleanupCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    @Mixin
    ProxyFlags flags = new ProxyFlags();

    @Mixin
    HnsHostOptions host = new HnsHostOptions();

    @Option(names = "--all", description = "Remove every load balancer on the host, not only winproxy's "
            + "(for migrating from kube-proxy).")
    boolean all;

    @Override
    public Integer call() throws ConfigException {
        // The proxy's own command line is accepted (as with --cleanup): invalid flags or configuration exit 2, and
        // the logging flags apply.
        ProxyConfig config = ConfigResolver.resolve(flags, root.context().env());
        LoggingSetup.configure(config.logging());
        return cleanup(root.context(), host, all);
    }

    static int cleanup(CliContext context, HnsHostOptions host, boolean all) {
        HnsCleanup.Report report;
        try (InstanceLock lock = host.lockStateDir(context.env(), "cleanup")) {
            OwnershipJournal journal = OwnershipJournal.open(host.stateDir(context.env()));
            report = new HnsCleanup(host.openExisting(), journal).run(all);
        }
        context.out().printf("Removed %d load balancer(s) and %d remote endpoint(s).%n",
                report.deletedLoadBalancers().size(), report.deletedRemoteEndpoints().size());
        print(context, "Left %d unowned load balancer(s)%s", report.unownedLoadBalancers(),
                " (cleanup --all removes them)");
        print(context, "Left %d unowned remote endpoint(s)%s", report.unownedRemoteEndpoints(), "");
        for (String failure : report.failures()) {
            context.err().println("winproxy: cleanup: " + failure);
        }
        return report.succeeded() ? 0 : 1;
    }

    private static void print(CliContext context, String format, List<String> ids, String hint) {
        if (ids.isEmpty()) {
            return;
        }
        context.out().printf(format + ": %s%n", ids.size(), hint, String.join(", ", ids));
    }
}
