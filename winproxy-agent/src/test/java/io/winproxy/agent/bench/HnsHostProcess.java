package io.winproxy.agent.bench;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.NetworkSession;
import io.winproxy.hns.emulator.CallJournal;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HcnJson;
import io.winproxy.hns.model.HostComputeEndpoint;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The node mode's emulated host, in a JVM of its own so that its heap (111,000 objects at 10,000 Services) and its
 * call journal are not counted in the agent's process ({@link NodeAgentProcess}, a third JVM). {@code main(services,
 * endpointsPerService, profile)} builds the emulated overlay host of the scale cluster ({@link ScaleCluster#setUpHost}),
 * prints {@code READY <port>} and serves {@link HnsClient} calls on loopback connections until its standard input
 * closes: the benchmark's (the journal) and each agent process's, one call at a time. {@link #client()} is an
 * {@link HnsClient} over one connection: each call is one request (the method's name and its arguments as HCN JSON)
 * and one answer (the result, or the HRESULT of an {@link HnsException}); {@link #openNetwork} keeps the emulator's
 * own network session on the host's side, so the native calls counted are the same as in one process. The journal
 * methods read the emulator's call journal.
 *
 * @param process the host JVM, or null for a connection made by {@link #connect(int)}
 * @param port    the host's loopback port
 * @param socket  this connection to it
 */
record HnsHostProcess(Process process, int port, Socket socket, DataInputStream in, DataOutputStream out)
        implements AutoCloseable {
    private static final ObjectMapper JSON = HcnJson.newMapper();
    private static final byte OK = 0;
    private static final byte HNS_ERROR = 1;
    private static final byte OTHER_ERROR = 2;

    /** Starts the host JVM (-Xmx1g) with the cluster's host set up, and connects to it. */
    static HnsHostProcess start(ScaleCluster cluster, EchoPreset profile) throws IOException {
        String java = System.getProperty("java.home") + "/bin/java";
        Process p = new ProcessBuilder(java, "-Xmx1g", "-cp", System.getProperty("java.class.path"),
                HnsHostProcess.class.getName(), Integer.toString(cluster.services()),
                Integer.toString(cluster.endpointsPerService()), profile.name())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = lines.readLine()) != null) {
            if (line.startsWith("READY ")) {
                return connect(p, Integer.parseInt(line.substring(6).trim()));
            }
        }
        p.destroyForcibly();
        throw new IOException("the emulated host process ended before it was ready");
    }

    /**
     * A connection of its own to the host {@link #start} started on {@code port}: the agent's process uses one while
     * the benchmark keeps its own for the journal. {@link #close()} then closes only the connection.
     */
    static HnsHostProcess connect(int port) throws IOException {
        return connect(null, port);
    }

    private static HnsHostProcess connect(Process p, int port) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        s.setTcpNoDelay(true);
        return new HnsHostProcess(p, port, s, new DataInputStream(new BufferedInputStream(s.getInputStream())),
                new DataOutputStream(new BufferedOutputStream(s.getOutputStream())));
    }

    /** The agent's HNS: every call answered by the emulator in the host process. */
    HnsClient client() {
        return (HnsClient) Proxy.newProxyInstance(HnsClient.class.getClassLoader(), new Class<?>[] {HnsClient.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "toString" -> "HnsHostProcess.client";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "setNativeCallListener" -> null;
                    case "openNetwork" -> session((String) args[0]);
                    default -> call(method.getName(), method.getGenericReturnType(), args);
                });
    }

    private NetworkSession session(String networkId) {
        int handle = (Integer) call("openNetwork", Integer.class, new Object[] {networkId});
        return new NetworkSession() {
            @Override
            public String networkId() {
                return networkId;
            }

            @Override
            public HostComputeEndpoint createEndpoint(HostComputeEndpoint settings) {
                return (HostComputeEndpoint) call("session.createEndpoint", HostComputeEndpoint.class,
                        new Object[] {handle, settings});
            }

            @Override
            public void close() {
                call("session.close", Void.class, new Object[] {handle});
            }
        };
    }

    void resetJournal() {
        call("journal.reset", Void.class, new Object[0]);
    }

    /** The emulator's journal: calls by export name, total, writes, and counts by {@link HnsCall}. */
    @SuppressWarnings("unchecked")
    JournalView journal() {
        Map<String, Object> j = (Map<String, Object>) call("journal.view", Map.class, new Object[0]);
        Map<String, Integer> byCall = new HashMap<>();
        ((Map<String, Number>) j.get("byCall")).forEach((k, v) -> byCall.put(k, v.intValue()));
        Map<String, Integer> snapshot = new java.util.LinkedHashMap<>();
        ((Map<String, Number>) j.get("snapshot")).forEach((k, v) -> snapshot.put(k, v.intValue()));
        return new JournalView(snapshot, ((Number) j.get("total")).intValue(), ((Number) j.get("writes")).intValue(),
                byCall);
    }

    /** A copy of the emulator's call journal. */
    record JournalView(Map<String, Integer> snapshot, int total, int writes, Map<String, Integer> byCall) {
        int count(HnsCall call) {
            return byCall.getOrDefault(call.name(), 0);
        }
    }

    private synchronized Object call(String name, Type returns, Object[] args) {
        try {
            out.writeUTF(name);
            byte[] body = JSON.writeValueAsBytes(args == null ? new Object[0] : args);
            out.writeInt(body.length);
            out.write(body);
            out.flush();
            byte status = in.readByte();
            byte[] answer = new byte[in.readInt()];
            in.readFully(answer);
            if (status == HNS_ERROR) {
                JsonNode e = JSON.readTree(answer);
                throw new HnsException(e.get("hresult").asInt(), e.get("operation").asText(),
                        e.get("errorRecord").asText());
            }
            if (status == OTHER_ERROR) {
                throw new IllegalStateException("emulated host: " + new String(answer, StandardCharsets.UTF_8));
            }
            if (returns == void.class || returns == Void.class) {
                return null;
            }
            if (returns instanceof ParameterizedType pt && pt.getRawType() == Optional.class) {
                JsonNode node = JSON.readTree(answer);
                return node.isNull() ? Optional.empty()
                        : Optional.of(JSON.convertValue(node, JSON.constructType(pt.getActualTypeArguments()[0])));
            }
            return JSON.readValue(answer, JSON.constructType(returns));
        } catch (IOException e) {
            throw new UncheckedIOException("emulated host connection: " + name, e);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
            if (process != null) {
                process.getOutputStream().close();
            }
        } catch (IOException e) {
            if (process != null) {
                process.destroy();
            }
        }
        if (process != null) {
            ApiServerProcess.awaitEnd(process);
        }
    }

    public static void main(String[] args) throws Exception {
        ScaleCluster cluster = new ScaleCluster(Integer.parseInt(args[0]), Integer.parseInt(args[1]));
        HnsEmulator hns = EchoPreset.parse(args[2]).emulator();
        cluster.setUpHost(hns);
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            System.out.println("READY " + server.getLocalPort());
            System.out.flush();
            Thread accepting = new Thread(() -> accept(server, hns), "hns-host-accept");
            accepting.setDaemon(true);
            accepting.start();
            while (System.in.read() >= 0) {
                // EOF (the benchmark closed our standard input) ends the host
            }
        }
    }

    /** Serves each connection (the benchmark's, each agent process's) on a thread of its own, one call at a time. */
    private static void accept(ServerSocket server, HnsEmulator hns) {
        while (true) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return;
            }
            Thread serving = new Thread(() -> serve(s, hns), "hns-host-" + s.getPort());
            serving.setDaemon(true);
            serving.start();
        }
    }

    private static void serve(Socket socket, HnsEmulator hns) {
        Map<Integer, NetworkSession> sessions = new HashMap<>();
        Map<String, Method> methods = new HashMap<>();
        for (Method m : HnsClient.class.getMethods()) {
            methods.put(m.getName(), m);
        }
        try (Socket s = socket;
             DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
             DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()))) {
            s.setTcpNoDelay(true);
            while (true) {
                String name = in.readUTF();
                byte[] body = new byte[in.readInt()];
                in.readFully(body);
                ArrayNode a = (ArrayNode) JSON.readTree(body);
                byte status = OK;
                Object result;
                try {
                    result = dispatch(hns, sessions, methods, name, a);
                } catch (HnsException e) {
                    status = HNS_ERROR;
                    result = Map.of("hresult", e.hresult(), "operation", e.operation(), "errorRecord",
                            e.errorRecord());
                } catch (RuntimeException e) {
                    status = OTHER_ERROR;
                    result = null;
                    body = String.valueOf(e).getBytes(StandardCharsets.UTF_8);
                    out.writeByte(status);
                    out.writeInt(body.length);
                    out.write(body);
                    out.flush();
                    continue;
                }
                if (result instanceof Optional<?> o) {
                    result = o.orElse(null);
                }
                byte[] answer = JSON.writeValueAsBytes(result);
                out.writeByte(status);
                out.writeInt(answer.length);
                out.write(answer);
                out.flush();
            }
        } catch (IOException e) {
            // the benchmark or an agent process closed its connection
        }
    }

    /** One call; the emulator answers the connections one call at a time. */
    private static Object dispatch(HnsEmulator hns, Map<Integer, NetworkSession> sessions, Map<String, Method> methods,
                                   String name, ArrayNode a) {
        synchronized (hns) {
            return switch (name) {
                case "openNetwork" -> {
                    int handle = sessions.size() + 1;
                    while (sessions.containsKey(handle)) {
                        handle++;
                    }
                    sessions.put(handle, hns.openNetwork(a.get(0).asText()));
                    yield handle;
                }
                case "session.createEndpoint" -> sessions.get(a.get(0).asInt())
                        .createEndpoint(JSON.convertValue(a.get(1), HostComputeEndpoint.class));
                case "session.close" -> {
                    sessions.remove(a.get(0).asInt()).close();
                    yield null;
                }
                case "journal.reset" -> {
                    hns.journal().reset();
                    yield null;
                }
                case "journal.view" -> journalView(hns.journal());
                default -> invoke(hns, methods.get(name), a);
            };
        }
    }

    private static Object invoke(HnsClient hns, Method m, ArrayNode a) {
        if (m == null) {
            throw new IllegalArgumentException("no such HnsClient method");
        }
        Type[] types = m.getGenericParameterTypes();
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            JavaType t = JSON.constructType(types[i]);
            args[i] = JSON.convertValue(a.get(i), t);
        }
        try {
            return m.invoke(hns, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, Object> journalView(CallJournal journal) {
        Map<String, Integer> byCall = new HashMap<>();
        for (HnsCall c : HnsCall.values()) {
            byCall.put(c.name(), journal.count(c));
        }
        return Map.of("snapshot", journal.snapshot(), "total", journal.total(), "writes", journal.writes(),
                "byCall", byCall);
    }
}
