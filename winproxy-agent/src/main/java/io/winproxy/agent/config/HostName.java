package io.winproxy.agent.config;

import com.sun.jna.Platform;
import com.sun.jna.platform.win32.Kernel32;
import com.sun.jna.platform.win32.WinBase;
import com.sun.jna.ptr.IntByReference;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The machine's host name as Go's {@code os.Hostname()} returns it, lower-cased and trimmed as kube-proxy's
 * {@code GetHostname} does: on Windows the DNS host name ({@code GetComputerNameExW(ComputerNameDnsHostname)},
 * not the 15-character NetBIOS name in {@code COMPUTERNAME}); on Linux the kernel's host name. Falls back to the
 * JDK's local host name, then to env {@code COMPUTERNAME} / {@code HOSTNAME}; "" when all fail. Stateless.
 */
final class HostName {
    private static final Path LINUX_HOSTNAME = Path.of("/proc/sys/kernel/hostname");

    private HostName() {
    }

    static String machine(Map<String, String> env) {
        return os().or(HostName::jdk).or(() -> fromEnv(env)).map(HostName::normalize).orElse("");
    }

    private static Optional<String> os() {
        try {
            if (Platform.isWindows()) {
                char[] buffer = new char[256];
                IntByReference size = new IntByReference(buffer.length);
                if (Kernel32.INSTANCE.GetComputerNameEx(WinBase.COMPUTER_NAME_FORMAT.ComputerNameDnsHostname,
                        buffer, size)) {
                    return nonBlank(new String(buffer, 0, size.getValue()));
                }
                return Optional.empty();
            }
            if (Files.isReadable(LINUX_HOSTNAME)) {
                return nonBlank(Files.readString(LINUX_HOSTNAME, StandardCharsets.UTF_8));
            }
        } catch (IOException | LinkageError e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    private static Optional<String> jdk() {
        try {
            return nonBlank(InetAddress.getLocalHost().getHostName());
        } catch (UnknownHostException e) {
            // The JDK reports "<hostname>: <reason>" when the name is known but does not resolve.
            String message = String.valueOf(e.getMessage());
            int colon = message.indexOf(':');
            return colon > 0 ? nonBlank(message.substring(0, colon)) : Optional.empty();
        }
    }

    private static Optional<String> fromEnv(Map<String, String> env) {
        for (String name : List.of("COMPUTERNAME", "HOSTNAME")) {
            Optional<String> value = nonBlank(env.get(name));
            if (value.isPresent()) {
                return value;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> nonBlank(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
    }

    private static String normalize(String name) {
        return name.trim().toLowerCase(Locale.ROOT);
    }
}
