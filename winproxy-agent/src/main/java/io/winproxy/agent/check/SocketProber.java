package io.winproxy.agent.check;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;

/** Probes from this machine: a TCP connect and an HTTP GET, each with a short timeout. */
public final class SocketProber implements Reachability.Prober {
    private final Duration timeout;

    public SocketProber(Duration timeout) {
        this.timeout = timeout;
    }

    @Override
    public boolean modelled() {
        return false;
    }

    @Override
    public Reachability.Outcome connect(DesiredLoadBalancer lb, String ip, int port) {
        long start = System.nanoTime();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(ip, port), (int) timeout.toMillis());
            return new Reachability.Outcome(true, "connected in " + (System.nanoTime() - start) / 1_000_000 + " ms");
        } catch (SocketTimeoutException e) {
            return new Reachability.Outcome(false, "timed out after " + timeout.toMillis() + " ms");
        } catch (IOException e) {
            return new Reachability.Outcome(false, e.getClass().getSimpleName() + " " + e.getMessage());
        }
    }

    @Override
    public Reachability.Outcome healthCheck(String ip, int port) {
        try {
            String host = ip.contains(":") ? "[" + ip + "]" : ip;
            HttpURLConnection c = (HttpURLConnection) URI.create("http://" + host + ":" + port + "/").toURL()
                    .openConnection();
            c.setConnectTimeout((int) timeout.toMillis());
            c.setReadTimeout((int) timeout.toMillis());
            int code = c.getResponseCode();
            c.disconnect();
            // 503 is an answer too: this node has no local endpoint and says so, as kube-proxy's listener does.
            return new Reachability.Outcome(true, "HTTP " + code + (code == 503 ? " (no local endpoint)" : ""));
        } catch (IOException e) {
            return new Reachability.Outcome(false, e.getClass().getSimpleName() + " " + e.getMessage());
        }
    }
}
