package io.winproxy.agent.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsVariant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code winproxy hns variant set|show|clear --hns-state FILE}: the {@link HnsVariant}s of an emulated host, plausible
 * HNS behaviours switched on in addition to the emulator's pessimistic default, saved in the state file so that a
 * demo or agent sharing it behaves so from its next HNS call.
 */
@Command(name = "variant", description = "Switch plausible HNS behaviours on an emulated host (--hns-state FILE).",
        subcommands = {HnsVariantCommand.SetCommand.class, HnsVariantCommand.ShowCommand.class,
                HnsVariantCommand.ClearCommand.class})
public final class HnsVariantCommand extends CommandGroup {
    /** {@code hns variant set NAME...}: exactly the variants named are on afterwards. */
    @Command(name = "set", description = "Switch exactly these variants on (others off); NAME[,NAME]...")
    static final class SetCommand extends EmulatedHostCommand {
        @Parameters(arity = "1..*", split = ",", paramLabel = "NAME",
                description = "ids-ignored, ids-rejected, extra-flags, modify-noop, duplicate-frontend.")
        List<String> names;

        private Set<HnsVariant> variants;

        @Override
        void parseOptions() {
            variants = parse("hns variant set", names);
        }

        @Override
        void run(HnsEmulator hns, CliContext context) {
            hns.setVariants(variants);
            print(context, hns.variants());
        }
    }

    /** {@code hns variant clear}: back to the default profile. */
    @Command(name = "clear", description = "Switch every variant off (the default pessimistic profile only).")
    static final class ClearCommand extends EmulatedHostCommand {
        @Override
        void run(HnsEmulator hns, CliContext context) {
            hns.setVariants(Set.of());
            print(context, hns.variants());
        }
    }

    /** {@code hns variant show [-o json]}. */
    @Command(name = "show", description = "Show the variants switched on.")
    static final class ShowCommand extends EmulatedHostCommand {
        @Option(names = {"-o", "--output"}, paramLabel = "json|text", description = "Output format (default: text).")
        OutputFormat output = OutputFormat.text;

        @Override
        void run(HnsEmulator hns, CliContext context) {
            Set<HnsVariant> variants = hns.variants();
            if (output == OutputFormat.json) {
                JsonNodeFactory n = JsonNodeFactory.instance;
                ObjectNode out = n.objectNode();
                ArrayNode list = out.putArray("variants");
                for (HnsVariant v : variants) {
                    list.addObject().put("name", v.text()).put("description", v.description());
                }
                context.out().println(HnsCommand.json(out));
            } else {
                print(context, variants);
            }
        }
    }

    /**
     * The variants of names given to {@code flag} (each may hold several, comma-separated; blanks ignored).
     *
     * @throws UsageException naming the flag and the known variants when a name is unknown
     */
    static Set<HnsVariant> parse(String flag, List<String> names) {
        Set<HnsVariant> out = EnumSet.noneOf(HnsVariant.class);
        for (String name : names == null ? List.<String>of() : names) {
            for (String part : name.split(",", -1)) {
                if (part.isBlank()) {
                    continue;
                }
                try {
                    out.add(HnsVariant.parse(part));
                } catch (IllegalArgumentException e) {
                    throw new UsageException(flag + ": " + e.getMessage());
                }
            }
        }
        return out;
    }

    private static void print(CliContext context, Set<HnsVariant> variants) {
        if (variants.isEmpty()) {
            context.out().println("no variants: the default pessimistic profile only");
            return;
        }
        for (HnsVariant v : variants) {
            context.out().println(v.text() + ": " + v.description());
        }
    }
}
