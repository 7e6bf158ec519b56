package io.winproxy.agent.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Base of the commands that only group subcommands ({@code hns}, {@code hns fault}, {@code hns variant}). Run without
 * a subcommand, one fails with a usage error naming its subcommands in the order they are declared, e.g.
 * {@code hns fault: name a subcommand: set, clear or show}.
 */
abstract class CommandGroup implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public final Integer call() {
        List<String> names = spec.subcommands().values().stream().map(CommandLine::getCommandName).distinct()
                .toList();
        String last = names.get(names.size() - 1);
        String choices = names.size() == 1 ? last
                : String.join(", ", names.subList(0, names.size() - 1)) + " or " + last;
        throw new UsageException(belowRoot(spec) + ": name a subcommand: " + choices);
    }

    /** The command as the user typed it below the root, e.g. {@code hns fault set}. */
    static String belowRoot(CommandSpec spec) {
        if (spec.root() == spec) {
            return spec.name();
        }
        return spec.qualifiedName(" ").substring(spec.root().name().length() + 1);
    }
}
