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
 *
 * <p>Each runs the same way ({@link #call()}): {@link #parseOptions()}, then the host is opened and
 * {@link #run(HnsEmulator, CliContext)} acts on it and prints the outcome; exit 0. A usage error found in
 * {@code parseOptions} is reported whatever the state of the host.
 */
abstract class EmulatedHostCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    HnsHostOptions host = new HnsHostOptions();

    @Override
    public final Integer call() {
        parseOptions();
        run(openHost(), context());
        return 0;
    }

    /**
     * Checks and converts the options before the host is opened; nothing by default.
     *
     * @throws UsageException naming the option
     */
    void parseOptions() {
    }

    /**
     * Acts on the emulated host and prints the outcome.
     *
     * @throws UsageException naming the option when one is invalid
     */
    abstract void run(HnsEmulator hns, CliContext context);

    /**
     * The emulated host of {@code --hns-state FILE}.
     *
     * @throws UsageException naming {@code --hns-state} and this command when there is no such host
     */
    private HnsEmulator openHost() {
        return host.openEmulated(commandName());
    }

    /** The command as the user typed it below the root, e.g. {@code hns fault set}. */
    final String commandName() {
        return CommandGroup.belowRoot(spec);
    }

    /** The context of the root command this command runs under. */
    final CliContext context() {
        return ((RootCommand) spec.root().userObject()).context();
    }
}
