package io.winproxy.agent.cli;

import io.winproxy.hns.emulator.HnsEmulator;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Base of the {@code hns} subcommands that control an emulated host another process (a demo, an agent) uses through
 * {@code --hns-state FILE}: {@code hns fault set|clear|show}, {@code hns variant set|clear|show}, {@code hns restart}
 * and {@code hns rehydrate}. It carries the {@link HnsHostOptions} and finds the CLI context through the command
 * hierarchy, so a subcommand needs neither its own parent chain nor its name written out again.
 */
abstract class EmulatedHostCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    HnsHostOptions host = new HnsHostOptions();

    /**
     * The emulated host of {@code --hns-state FILE}.
     *
     * @throws UsageException naming {@code --hns-state} and this command when there is no such host
     */
    final HnsEmulator openHost() {
        return host.openEmulated(commandName());
    }

    /** The command as the user typed it below the root, e.g. {@code hns fault set}. */
    final String commandName() {
        return spec.qualifiedName(" ").substring(spec.root().name().length() + 1);
    }

    /** The context of the root command this command runs under. */
    final CliContext context() {
        return ((RootCommand) spec.root().userObject()).context();
    }
}
