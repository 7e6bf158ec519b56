package io.winproxy.agent.check;

/** The verdict of one check: PASS, WARN (works, but something deserves attention) or FAIL (something is broken). */
public enum CheckStatus {
    PASS, WARN, FAIL;

    /** The worse of two verdicts. */
    public CheckStatus worse(CheckStatus other) {
        return other.ordinal() > ordinal() ? other : this;
    }
}
