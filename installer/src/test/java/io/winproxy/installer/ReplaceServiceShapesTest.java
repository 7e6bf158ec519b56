package io.winproxy.installer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code install-service.ps1 -ReplaceService NAME} (the installer's {@code replace} and {@code rollback}) on the
 * recorded {@code sc qc} shape of each launcher family's kube-proxy service (src/test/resources/sc-qc): the service
 * keeps its name, dependencies, account and arguments, only the program changes; flags beside a config file are
 * refused; services whose binary path does not hold kube-proxy's arguments are refused with what to do instead; a
 * rollback restores the recorded binary path.
 */
class ReplaceServiceShapesTest {
    private static final String WINPROXY_EXE = "C:\\k\\winproxy\\kube-proxy.exe";

    @TempDir
    Path dir;

    /** One service as sc qc shows it, held by an in-memory SCM that records every change. */
    private static final class RecordedScm implements ServiceConfigApi {
        final String name;
        ServiceConfig config;
        final List<String> binaryPaths = new ArrayList<>();
        int opened;
        int closed;

        RecordedScm(String resource) throws IOException {
            String text;
            try (InputStream in = ReplaceServiceShapesTest.class.getResourceAsStream("/sc-qc/" + resource)) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            String service = null;
            String binary = null;
            String account = null;
            String display = null;
            int start = 0;
            List<String> dependencies = new ArrayList<>();
            String last = null;
            for (String line : text.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String key = line.substring(0, colon).strip();
                String value = line.substring(colon + 1).strip();
                if (key.isEmpty() && "DEPENDENCIES".equals(last)) {
                    dependencies.add(value); // a continuation line of DEPENDENCIES
                    continue;
                }
                last = key;
                switch (key) {
                    case "SERVICE_NAME" -> service = value;
                    case "BINARY_PATH_NAME" -> binary = value;
                    case "START_TYPE" -> start = Integer.parseInt(value.split("\\s+")[0]);
                    case "DISPLAY_NAME" -> display = value;
                    case "SERVICE_START_NAME" -> account = value;
                    case "DEPENDENCIES" -> {
                        if (!value.isEmpty()) {
                            dependencies.add(value);
                        }
                    }
                    default -> { }
                }
            }
            this.name = service;
            this.config = new ServiceConfig(binary, start, dependencies, account, display);
        }

        @Override
        public Handle openManager() {
            opened++;
            return new Handle() { };
        }

        @Override
        public Optional<Handle> openService(Handle manager, String requested) {
            if (!requested.equalsIgnoreCase(name)) {
                return Optional.empty();
            }
            opened++;
            return Optional.of(new Handle() { });
        }

        @Override
        public ServiceConfig queryConfig(Handle service) {
            return config;
        }

        @Override
        public void setBinaryPath(Handle service, String binaryPath) {
            binaryPaths.add(binaryPath);
            config = new ServiceConfig(binaryPath, config.startType(), config.dependencies(), config.account(),
                    config.displayName());
        }

        @Override
        public StoredSettings query(Handle service) {
            return new StoredSettings(List.of(10_000, 30_000, 60_000), 900, true, false);
        }

        @Override
        public void close(Handle handle) {
            closed++;
        }

        @Override
        public Handle createService(Handle m, String n, String d, int s, String c, List<String> deps) {
            throw new AssertionError("a replacement creates no service");
        }

        @Override
        public void setDescription(Handle service, String description) {
            throw new AssertionError("a replacement keeps the description");
        }

        @Override
        public void setDelayedAutoStart(Handle service, boolean delayed) {
            throw new AssertionError("a replacement keeps the start type");
        }

        @Override
        public void setFailureActions(Handle service, List<Integer> delays, int reset) {
            throw new AssertionError("a replacement keeps the recovery actions");
        }

        @Override
        public void setFailureActionsOnNonCrashFailures(Handle service, boolean enabled) {
            throw new AssertionError("a replacement keeps the failure-actions flag");
        }

        @Override
        public boolean isStopped(Handle service) {
            return true;
        }

        @Override
        public void delete(Handle service) {
            throw new AssertionError("a replacement deletes no service");
        }
    }

    private record Run(int code, String out, String err) {
    }

    private Run installer(RecordedScm scm, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new InstallerCommand(() -> new ServiceRegistrar(scm), new PrintStream(out, true,
                StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)).run(args);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Run replace(RecordedScm scm, String... agentArguments) {
        List<String> args = new ArrayList<>(List.of("replace", "--name", scm.name, "--kube-proxy", WINPROXY_EXE,
                "--record", dir.resolve(scm.name + ".properties").toString()));
        if (agentArguments.length > 0) {
            args.add("--");
            args.addAll(List.of(agentArguments));
        }
        return installer(scm, args.toArray(String[]::new));
    }

    @Test
    void wmcoKeepsItsLogRunnerArgumentsAndDependencyOnlyKubeProxyExeChanges() throws IOException {
        RecordedScm scm = new RecordedScm("wmco.txt");
        ServiceConfigApi.ServiceConfig before = scm.config;

        Run run = replace(scm);

        assertThat(run.code()).as(run.err()).isZero();
        assertThat(CommandLine.split(scm.config.binaryPath())).containsExactly("C:\\k\\kube-log-runner.exe",
                "-log-file=C:\\var\\log\\kube-proxy\\kube-proxy.log", WINPROXY_EXE, "--config",
                "C:\\k\\kube-proxy.conf", "--windows-service");
        assertThat(scm.config.dependencies()).isEqualTo(before.dependencies()).containsExactly("hybrid-overlay-node");
        assertThat(scm.config.account()).isEqualTo("LocalSystem");
        assertThat(run.out()).contains("replaced service kube-proxy").contains("stays in front")
                .contains("dependencies hybrid-overlay-node");
        assertThat(scm.opened).isEqualTo(scm.closed);
    }

    @Test
    void aPlainServiceKeepsEveryArgumentAndBothDependencies() throws IOException {
        RecordedScm scm = new RecordedScm("other-sc-create.txt");
        List<String> before = CommandLine.split(scm.config.binaryPath());

        assertThat(replace(scm).code()).isZero();

        List<String> after = CommandLine.split(scm.config.binaryPath());
        assertThat(after.get(0)).isEqualTo(WINPROXY_EXE);
        assertThat(after.subList(1, after.size())).isEqualTo(before.subList(1, before.size()));
        assertThat(scm.config.dependencies()).containsExactly("hns", "kubelet");
    }

    @Test
    void winproxysOwnJavaServiceBecomesKubeProxyExeWithTheAgentsArguments() throws IOException {
        RecordedScm scm = new RecordedScm("other-winproxy-java.txt");

        assertThat(replace(scm).code()).isZero();

        assertThat(CommandLine.split(scm.config.binaryPath())).containsExactly(WINPROXY_EXE,
                "--config=C:\\k\\winproxy\\conf\\kube-proxy-config-service.yaml", "--logtostderr=false",
                "--log-file=C:\\k\\winproxy\\logs\\winproxy.log");
    }

    @Test
    void servicesThatRunNssmAScriptOrAWrapperAreRefusedWithWhatToDoAndLeftAsTheyWere() throws IOException {
        for (String shape : List.of("aks.txt", "aks-engine.txt", "calico.txt", "microsoft-sdn.txt")) {
            RecordedScm scm = new RecordedScm(shape);
            String before = scm.config.binaryPath();

            Run run = replace(scm);

            assertThat(run.code()).as(shape).isEqualTo(InstallerCommand.EXIT_USAGE);
            assertThat(run.err().strip()).as(shape).doesNotContain("\n").contains("-ReplaceService " + scm.name)
                    .contains("swap kube-proxy.exe");
            assertThat(scm.binaryPaths).as(shape).isEmpty();
            assertThat(scm.config.binaryPath()).isEqualTo(before);
            assertThat(Files.exists(dir.resolve(scm.name + ".properties"))).as("no record of a refusal").isFalse();
        }
    }

    @Test
    void agentArgumentsBesideAConfigFileAreRefusedAndWithoutOneAppendedSayingSo() throws IOException {
        RecordedScm wmco = new RecordedScm("wmco.txt");
        Run refused = replace(wmco, "--cluster-cidr=10.132.0.0/14");
        assertThat(refused.code()).isEqualTo(InstallerCommand.EXIT_USAGE);
        assertThat(refused.err()).contains("-AgentArgument --cluster-cidr=10.132.0.0/14")
                .contains("--config C:\\k\\kube-proxy.conf").contains("put these settings into that file");
        assertThat(wmco.binaryPaths).isEmpty();

        RecordedScm plain = new RecordedScm("other-sc-create.txt");
        Run appended = replace(plain, "--cluster-cidr=10.244.0.0/16");
        assertThat(appended.code()).isZero();
        assertThat(CommandLine.split(plain.config.binaryPath())).endsWith("--cluster-cidr=10.244.0.0/16");
        assertThat(appended.out()).contains("appended --cluster-cidr=10.244.0.0/16");
    }

    @Test
    void aRollbackPutsTheRecordedBinaryPathBackAndRefusesOverALaterChange() throws IOException {
        RecordedScm scm = new RecordedScm("wmco.txt");
        String original = scm.config.binaryPath();
        String record = dir.resolve("kube-proxy.properties").toString();
        assertThat(replace(scm).code()).isZero();

        Run back = installer(scm, "rollback", "--name", "kube-proxy", "--record", record);

        assertThat(back.code()).as(back.err()).isZero();
        assertThat(scm.config.binaryPath()).isEqualTo(original);

        // Changed by someone else (WMCO reconfiguring the node) after the replacement: the rollback keeps out.
        assertThat(replace(scm).code()).isZero();
        scm.setBinaryPath(null, "C:\\k\\kube-log-runner.exe C:\\k\\kube-proxy.exe --v=4");
        Run refused = installer(scm, "rollback", "--name", "kube-proxy", "--record", record);
        assertThat(refused.code()).isEqualTo(InstallerCommand.EXIT_FAILURE);
        assertThat(refused.err()).contains("was changed after the replacement");
    }

    /** docs/launcher-families.tsv: id -> columns (the table the runbook's family rows are checked against). */
    private static Map<String, String[]> families() throws IOException {
        Path table = Path.of(System.getProperty("winproxy.root", "..")).resolve("docs/launcher-families.tsv");
        Map<String, String[]> families = new LinkedHashMap<>();
        for (String line : Files.readAllLines(table, StandardCharsets.UTF_8)) {
            if (!line.isBlank() && !line.startsWith("#")) {
                String[] columns = line.split("\t");
                families.put(columns[0], columns);
            }
        }
        return families;
    }

    @Test
    void eachRecordedFamilyServiceHasTheNameAndKubeProxyExeOfTheFamilyTable() throws IOException {
        Map<String, String[]> families = families();
        for (String id : List.of("wmco", "aks", "aks-engine", "calico", "microsoft-sdn")) {
            String[] family = families.get(id);
            assertThat(family).as(id + " in docs/launcher-families.tsv").isNotNull();
            RecordedScm scm = new RecordedScm(id + ".txt");
            assertThat(scm.name).as(id).isEqualTo(family[2]);
            List<String> paths = List.of(family[3].split(";"));
            List<String> argv = CommandLine.split(scm.config.binaryPath());
            List<String> named = argv.stream().filter(a -> a.toLowerCase(java.util.Locale.ROOT)
                    .endsWith("kube-proxy.exe")).toList();
            // A family whose service runs kube-proxy.exe itself names the table's path; the others run nssm or a
            // wrapper, which start it from the table's path (the runbook row says so).
            assertThat(named).as(id).allMatch(paths::contains);
        }
    }

    @Test
    void theSplitterReadsBinaryPathsAsCommandLineToArgvW() {
        assertThat(CommandLine.split("\"C:\\Program Files\\k\\kube-proxy.exe\" a\\\\\\\"b \"c d\" e\\\\ \"f\"\"g\""))
                .containsExactly("C:\\Program Files\\k\\kube-proxy.exe", "a\\\"b", "c d", "e\\\\", "f\"g");
        List<String> args = List.of("C:\\k\\kube-proxy.exe", "--log-file=C:\\a b\\x.log", "q\"uote", "tail\\");
        assertThat(CommandLine.split(CommandLine.join(args))).isEqualTo(args);
    }
}
