package io.winproxy.agent.health;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Sends real HTTP requests to a listener on the loopback address, as a probe or a cloud load balancer would. */
public final class HttpProbe {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpProbe() {
    }

    public static HttpResponse<String> get(int port, String path) {
        return send("GET", port, path);
    }

    public static HttpResponse<String> get(InetSocketAddress address, String path) {
        return send("GET", address.getPort(), path);
    }

    public static HttpResponse<String> send(String method, int port, String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        try {
            return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + request.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * {@code count} distinct ports that were free a moment ago: all held open together while chosen, so that none is
     * one of the others (one at a time, a port just released can be chosen again).
     */
    public static int[] freePorts(int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                held.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            return held.stream().mapToInt(ServerSocket::getLocalPort).toArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // a socket that cannot be closed leaves its port taken: the caller's listener then fails to bind
                }
            }
        }
    }

    /** A port that was free a moment ago (for listeners whose port is fixed by the Service). */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
