package io.winproxy.agent.kube;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on a loopback port in front of a loopback server, for outage tests: {@link #stop()} closes the
 * listener and every connection (the API server is unreachable: connection refused), {@link #dropConnections()}
 * cuts the open connections only (watches end), {@link #start()} listens again on the same port. Tests only.
 */
public final class LoopbackTcpProxy implements AutoCloseable {
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket listener;
    private int port;

    public LoopbackTcpProxy(int targetPort) {
        this.targetPort = targetPort;
    }

    public synchronized LoopbackTcpProxy start() throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        port = socket.getLocalPort();
        listener = socket;
        Thread accept = new Thread(() -> acceptLoop(socket), "tcp-proxy-accept");
        accept.setDaemon(true);
        accept.start();
        return this;
    }

    public int port() {
        return port;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public synchronized void stop() throws IOException {
        if (listener != null) {
            listener.close();
            listener = null;
        }
        dropConnections();
    }

    public void dropConnections() {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                // already closed
            }
        }
        sockets.clear();
    }

    private void acceptLoop(ServerSocket socket) {
        while (!socket.isClosed()) {
            try {
                Socket client = socket.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(upstream);
                pipe(client, upstream);
                pipe(upstream, client);
            } catch (IOException e) {
                // listener closed, or the target refused: the client sees its connection end
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // connection cut
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException e) {
                    // ignore
                }
            }
        }, "tcp-proxy-pipe");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        stop();
    }
}
