package io.winproxy.agent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.winproxy.agent.dataplane.HnsCapabilityFile;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.explain.Explanation;
import io.winproxy.hns.explain.HnsExplainer;
import io.winproxy.hns.explain.HnsListing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code winproxy hns list|explain|delete}: troubleshooting on the real HNS (Windows) or an emulated host
 * ({@code --hns-state FILE}). {@code list} labels each load balancer with the service port it serves, from the
 * ownership journal of {@code --state-dir}. {@code hns fault|restart|rehydrate} rehearse HNS incidents on an emulated
 * host ({@link HnsFaultCommand}, {@link HnsRestartCommand}); {@code hns variant} switches plausible HNS behaviours on
 * ({@link HnsVariantCommand}).
 */
@Command(name = "hns", description = "Inspect and repair HNS objects.",
        subcommands = {HnsCommand.ListCommand.class, HnsCommand.ExplainCommand.class, HnsCommand.DeleteCommand.class,
                HnsFaultCommand.class, HnsVariantCommand.class, HnsRestartCommand.class,
                HnsRestartCommand.Rehydrate.class})
public final class HnsCommand extends CommandGroup {
    private static final ObjectMapper MAPPER = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    @ParentCommand
    RootCommand root;

    static String json(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code hns list [-o json]}. */
    @Command(name = "list", description = "List networks, endpoints and load balancers (with the service port "
            + "each load balancer serves).")
    static final class ListCommand implements Callable<Integer> {
        @ParentCommand
        HnsCommand parent;

        @Mixin
        HnsHostOptions host = new HnsHostOptions();

        @Option(names = {"-o", "--output"}, paramLabel = "json|text", description = "Output format (default: text).")
        OutputFormat output = OutputFormat.text;

        @Override
        public Integer call() {
            CliContext context = parent.root.context();
            OwnershipJournal journal = OwnershipJournal.readOnly(host.stateDir(context.env()));
            HnsListing listing = HnsListing.collect(host.openExisting(),
                    id -> journal.loadBalancer(id).map(OwnershipJournal.LoadBalancerEntry::service).orElse(null));
            java.util.Optional<HnsCapabilityFile> learnt = HnsCapabilityFile.read(host.stateDir(context.env()));
            if (output == OutputFormat.json) {
                JsonNode doc = listing.json();
                if (doc instanceof com.fasterxml.jackson.databind.node.ObjectNode o && learnt.isPresent()) {
                    o.set("learnt", new ObjectMapper().valueToTree(learnt.get()));
                }
                context.out().println(json(doc));
            } else {
                context.out().print(listing.text());
                io.winproxy.agent.dataplane.IdChoice.read(host.stateDir(context.env())
                        .resolve(io.winproxy.agent.dataplane.IdChoice.FILE_NAME))
                        .ifPresent(ids -> context.out().println("HNS IDs: " + ids));
                learnt.ifPresent(f -> context.out().print(learntText(f)));
            }
            return 0;
        }
    }

    /** What this node taught about HNS ({@code hns-capabilities.json}), one line per fact. */
    static String learntText(HnsCapabilityFile f) {
        StringBuilder b = new StringBuilder("Learnt (" + HnsCapabilityFile.FILE_NAME + "):\n");
        if (f.maxBackendsPerLoadBalancer() != null) {
            b.append("  max backends per load balancer: ").append(f.maxBackendsPerLoadBalancer()).append(" (")
                    .append(f.source()).append(f.learntAt() == null ? "" : ", " + f.learntAt()).append(")\n");
        }
        f.probes().forEach((k, v) -> b.append("  ").append(k).append(": ").append(v).append('\n'));
        return b.toString();
    }

    /** {@code hns explain FILE [-o json]} ({@code -} reads standard input). */
    @Command(name = "explain", description = "Decode an HCN/HNS JSON document (v2 load balancer, v1 policy list, "
            + "endpoint, network, error record).")
    static final class ExplainCommand implements Callable<Integer> {
        @ParentCommand
        HnsCommand parent;

        @Parameters(index = "0", paramLabel = "FILE", description = "The document ('-' for standard input).")
        String file;

        @Option(names = {"-o", "--output"}, paramLabel = "json|text", description = "Output format (default: text).")
        OutputFormat output = OutputFormat.text;

        @Override
        public Integer call() throws IOException {
            CliContext context = parent.root.context();
            String document;
            if ("-".equals(file)) {
                document = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
            } else {
                Path path = Path.of(file);
                if (!Files.isRegularFile(path)) {
                    throw new UsageException("hns explain: " + file + " is not a readable file");
                }
                document = Files.readString(path, StandardCharsets.UTF_8);
            }
            Explanation explanation;
            try {
                explanation = new HnsExplainer().explain(document);
            } catch (IllegalArgumentException e) {
                throw new UsageException("hns explain: " + file + ": " + e.getMessage());
            }
            if (output == OutputFormat.json) {
                context.out().println(json(explanation.json()));
            } else {
                context.out().print(explanation.text().endsWith("\n") ? explanation.text()
                        : explanation.text() + "\n");
            }
            return 0;
        }
    }

    /** {@code hns delete load-balancer|endpoint ID}. */
    @Command(name = "delete", description = "Delete one HNS object (the equivalent of Remove-HnsPolicyList).")
    static final class DeleteCommand implements Callable<Integer> {
        /** What to delete. */
        enum Kind {
            LOAD_BALANCER("load-balancer"), ENDPOINT("endpoint");

            private final String text;

            Kind(String text) {
                this.text = text;
            }

            static Kind parse(String value) {
                for (Kind k : values()) {
                    if (k.text.equals(value)) {
                        return k;
                    }
                }
                throw new UsageException("hns delete: the object kind must be load-balancer or endpoint, not '"
                        + value + "'");
            }
        }

        @ParentCommand
        HnsCommand parent;

        @Mixin
        HnsHostOptions host = new HnsHostOptions();

        @Parameters(index = "0", paramLabel = "load-balancer|endpoint", description = "The kind of object.")
        String kind;

        @Parameters(index = "1", paramLabel = "ID", description = "The object's ID.")
        String id;

        @Override
        public Integer call() {
            CliContext context = parent.root.context();
            Kind k = Kind.parse(kind);
            HnsClient hns = host.openExisting();
            OwnershipJournal journal = OwnershipJournal.open(host.stateDir(context.env()));
            try {
                if (k == Kind.LOAD_BALANCER) {
                    hns.deleteLoadBalancer(id);
                    journal.forgetLoadBalancer(id);
                } else {
                    hns.deleteEndpoint(id);
                    journal.forgetRemoteEndpoint(id);
                }
            } catch (IllegalArgumentException e) {
                // The binding and the emulator check the ID's syntax before any native call.
                throw new UsageException("hns delete: " + e.getMessage() + " (an HNS ID is a GUID)");
            } catch (HnsException e) {
                if (e.isNotFound()) {
                    context.err().println("winproxy: hns delete: no " + k.text + " " + id + " (" + e.hresultName()
                            + ")");
                    return 1;
                }
                throw e;
            }
            try {
                journal.flush();
            } catch (java.io.UncheckedIOException e) {
                context.err().println("winproxy: warning: " + e.getMessage());
            }
            context.out().println("Deleted " + k.text + " " + id);
            return 0;
        }
    }
}
