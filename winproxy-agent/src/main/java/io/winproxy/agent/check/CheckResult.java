package io.winproxy.agent.check;

import java.util.Objects;

/**
 * One line of a check report: the verdict, what was checked, and for WARN and FAIL the cause and the fix (a command,
 * a flag or a section of docs/troubleshooting.md). A finding about a Service names it ({@code namespace/name:port})
 * and the HNS object by ID.
 *
 * @param group   the group it belongs to
 * @param status  PASS, WARN or FAIL
 * @param check   a short stable name of the check, e.g. {@code network}, {@code load-balancer-missing}
 * @param message what was checked and found, one sentence
 * @param cause   why it is not PASS ("" for PASS)
 * @param fix     what to do ("" for PASS)
 * @param service the Service port the finding is about, "" when none
 * @param hnsId   the HNS object the finding is about, "" when none
 */
public record CheckResult(CheckGroup group, CheckStatus status, String check, String message, String cause,
                          String fix, String service, String hnsId) {
    public CheckResult {
        Objects.requireNonNull(group);
        Objects.requireNonNull(status);
        Objects.requireNonNull(check);
        message = message == null ? "" : message;
        cause = cause == null ? "" : cause;
        fix = fix == null ? "" : fix;
        service = service == null ? "" : service;
        hnsId = hnsId == null ? "" : hnsId;
    }

    public static CheckResult pass(CheckGroup group, String check, String message) {
        return new CheckResult(group, CheckStatus.PASS, check, message, "", "", "", "");
    }

    public static CheckResult warn(CheckGroup group, String check, String message, String cause, String fix) {
        return new CheckResult(group, CheckStatus.WARN, check, message, cause, fix, "", "");
    }

    public static CheckResult fail(CheckGroup group, String check, String message, String cause, String fix) {
        return new CheckResult(group, CheckStatus.FAIL, check, message, cause, fix, "", "");
    }

    /** This result about a Service port ({@code ns/name:port}). */
    public CheckResult about(String servicePort) {
        return new CheckResult(group, status, check, message, cause, fix, servicePort, hnsId);
    }

    /** This result about an HNS object. */
    public CheckResult on(String id) {
        return new CheckResult(group, status, check, message, cause, fix, service, id);
    }

    /** The one text line: {@code FAIL consistency/load-balancer-missing: ... cause: ... fix: ...}. */
    public String line() {
        StringBuilder b = new StringBuilder();
        b.append(status).append(' ').append(group).append('/').append(check).append(": ").append(message);
        if (!service.isEmpty() && !message.contains(service)) {
            b.append(" [service ").append(service).append(']');
        }
        if (!hnsId.isEmpty() && !message.contains(hnsId)) {
            b.append(" [hns ").append(hnsId).append(']');
        }
        if (status != CheckStatus.PASS) {
            if (!cause.isEmpty()) {
                b.append(" cause: ").append(cause);
            }
            if (!fix.isEmpty()) {
                b.append(" fix: ").append(fix);
            }
        }
        return b.toString();
    }
}
