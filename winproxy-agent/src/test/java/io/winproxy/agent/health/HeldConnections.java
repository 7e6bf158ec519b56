package io.winproxy.agent.health;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Client connections a test opens to a server on 127.0.0.1 and keeps open, such as idle and slow clients, until
 * {@link #close()}.
 */
public final class HeldConnections implements AutoCloseable {
    private final List<Socket> sockets = new ArrayList<>();

    /** A new connection to {@code port}, closed with the others. */
    public Socket connect(int port) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        sockets.add(socket);
        return socket;
    }

    /** Opens {@code idle} connections that send nothing and {@code halfSent} that send part of a head. */
    public void hold(int port, int idle, int halfSent) throws IOException {
        for (int i = 0; i < idle; i++) {
            connect(port);
        }
        for (int i = 0; i < halfSent; i++) {
            connect(port).getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
        }
    }

    /** How many connections were opened. */
    public int size() {
        return sockets.size();
    }

    @Override
    public void close() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
