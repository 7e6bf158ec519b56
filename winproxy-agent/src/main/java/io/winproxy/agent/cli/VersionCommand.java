package io.winproxy.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.ParentCommand;

/** {@code winproxy version}: the winproxy and Java versions. */
@Command(name = "version", description = "Print the version.")
public final class VersionCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    /** The jar's Implementation-Version, or "dev" when run from classes. */
    public static String version() {
        String v = VersionCommand.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    @Override
    public Integer call() {
        root.context().out().println("winproxy " + version() + " (java " + System.getProperty("java.version") + ")");
        return 0;
    }

    /** For {@code --version}. */
    public static final class Provider implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"winproxy " + version()};
        }
    }
}
