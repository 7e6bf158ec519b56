package io.winproxy.agent.logging;

import java.net.InetAddress;
import java.time.format.DateTimeFormatter;
import java.time.temporal.TemporalAccessor;
import java.util.Locale;
import java.util.Optional;

/**
 * klog's log file names: {@code <program>.<host>.<user>.log.<SEVERITY>.<yyyymmdd-hhmmss>.<pid>} and the link
 * {@code <program>.<SEVERITY>}. As klog: the host is the short host name; on Windows the user is
 * {@code %USERDOMAIN%_%USERNAME%} (e.g. {@code NT AUTHORITY}'s SYSTEM account runs as {@code WORKGROUP_NODE1$}),
 * elsewhere the login name; a {@code \} in it becomes {@code _}. Immutable.
 *
 * @param program {@code kube-proxy.exe} on Windows (the name launchers run), {@code kube-proxy} elsewhere
 * @param host    the short host name, or {@code unknownhost}
 * @param user    the sanitised user name, or {@code unknownuser}
 * @param pid     this process's id
 * @param version winproxy's version, written into each file's header
 */
public record KlogFileNames(String program, String host, String user, long pid, String version) {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT);

    /** The names for this process on this machine. */
    public static KlogFileNames forThisProcess() {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        String version = Optional.ofNullable(KlogFileNames.class.getPackage().getImplementationVersion())
                .orElse("dev");
        String user = windows ? windowsUser(System.getenv("USERDOMAIN"), System.getenv("USERNAME"))
                : sanitize(System.getProperty("user.name", ""));
        return new KlogFileNames(windows ? "kube-proxy.exe" : "kube-proxy", shortHost(hostName()), user,
                ProcessHandle.current().pid(), version);
    }

    /** The file name of a severity's file started at {@code time} (klog's {@code yyyymmdd-hhmmss} stamp). */
    public String fileName(String severity, TemporalAccessor time) {
        return prefix(severity) + STAMP.format(time) + "." + pid;
    }

    /** The link to a severity's newest file, e.g. {@code kube-proxy.exe.INFO}. */
    public String linkName(String severity) {
        return program + "." + severity;
    }

    /** Whether a file name is one of this program's files of a severity (from any run). */
    boolean isFileOf(String fileName, String severity) {
        return fileName.startsWith(prefix(severity)) && fileName.length() > prefix(severity).length();
    }

    /** The {@code yyyymmdd-hhmmss} part of one of this program's file names. */
    String stampOf(String fileName) {
        int start = fileName.indexOf(".log.") + 5;
        int dot = fileName.indexOf('.', start);
        int end = fileName.indexOf('.', dot + 1);
        return end > dot ? fileName.substring(dot + 1, end) : "";
    }

    private String prefix(String severity) {
        return program + "." + host + "." + user + ".log." + severity + ".";
    }

    static String sanitize(String user) {
        if (user == null || user.isEmpty()) {
            return "unknownuser";
        }
        return user.replace('\\', '_');
    }

    /** klog's Windows user name: {@code USERDOMAIN_USERNAME}, or {@code USERNAME} alone. */
    static String windowsUser(String domain, String name) {
        if (name == null || name.isEmpty()) {
            return "unknownuser";
        }
        String user = sanitize(name);
        return domain == null || domain.isEmpty() ? user : domain + "_" + user;
    }

    static String shortHost(String host) {
        if (host == null || host.isBlank()) {
            return "unknownhost";
        }
        int dot = host.indexOf('.');
        return dot > 0 ? host.substring(0, dot) : host;
    }

    private static String hostName() {
        String env = System.getenv("COMPUTERNAME");
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return env;
        }
    }
}
