package io.winproxy.agent.sync;

/** An overlay network without a source VIP: the sync programs nothing (no load balancer without SNAT). */
public final class SourceVipMissingException extends RuntimeException {
    public SourceVipMissingException(String message) {
        super(message);
    }
}
