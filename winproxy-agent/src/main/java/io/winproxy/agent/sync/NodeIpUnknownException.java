package io.winproxy.agent.sync;

/** This node's IP cannot be determined yet; the sync is skipped (never applied as "nothing desired") and retried. */
public class NodeIpUnknownException extends RuntimeException {
    public NodeIpUnknownException(String message) {
        super(message);
    }
}
