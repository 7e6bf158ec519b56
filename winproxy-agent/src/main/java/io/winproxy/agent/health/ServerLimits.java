package io.winproxy.agent.health;

import java.time.Duration;

/**
 * What one client may hold of an agent HTTP server (see docs/health-and-metrics.md, "Server limits").
 *
 * @param maxConnections at most this many connections are open at once; a new one beyond it evicts the connection
 *                       that has waited longest for its request head, or is closed at once when every open
 *                       connection is being answered
 * @param headTimeout    a request head (request line and headers) must arrive whole within this time from the
 *                       moment the connection is ready for it (accepted, or the previous response sent)
 * @param writeTimeout   a response must be written within this time, else the connection is closed
 * @param maxHeadBytes   a longer request head closes the connection
 */
public record ServerLimits(int maxConnections, Duration headTimeout, Duration writeTimeout, int maxHeadBytes) {

    /** The agent's limits: 64 connections, 3 s for a head, 10 s for a response, 16 KiB heads. */
    public static final ServerLimits DEFAULT =
            new ServerLimits(64, Duration.ofSeconds(3), Duration.ofSeconds(10), 16 * 1024);

    public ServerLimits {
        if (maxConnections < 1 || headTimeout.isNegative() || headTimeout.isZero() || writeTimeout.isNegative()
                || writeTimeout.isZero() || maxHeadBytes < 64) {
            throw new IllegalArgumentException("invalid server limits");
        }
    }
}
