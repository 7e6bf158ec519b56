package io.winproxy.installer;

/**
 * {@code java -cp "lib\*" io.winproxy.installer.Main install|uninstall ...}: registers the winproxy service without
 * PowerShell (for hosts whose execution policy blocks scripts). See {@link InstallerCommand} for the options. The
 * only place of the installer that calls {@code System.exit}.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        InstallerCommand command = new InstallerCommand(() -> new ServiceRegistrar(new JnaServiceConfigApi()),
                System.out, System.err);
        System.exit(command.run(args));
    }
}
