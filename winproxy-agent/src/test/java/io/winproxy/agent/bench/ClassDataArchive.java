package io.winproxy.agent.bench;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The class-data-sharing archive a node's agent maps from its second start on ({@code winproxy cds}, run by
 * {@code install-service.ps1} and by the proxy after its first sync, docs/operations.md "Class-data sharing"), built
 * for the benchmark's agent process the way {@code winproxy cds} builds it: a training run of
 * {@code plan --example-cluster --hns emulated} under {@code -XX:ArchiveClassesAtExit}, with the agent's JVM
 * options. The JVM maps an archive only for a class path of jars, so each folder of the agent's class path (the
 * module's classes and test classes) is first packed into a jar of its own.
 *
 * @param file      the archive
 * @param classPath the class path it was built for, which the agent process must use
 */
record ClassDataArchive(Path file, String classPath) {
    /** Builds the archive in {@code dir}. */
    static ClassDataArchive build(Path dir) throws IOException, InterruptedException {
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String entry : NodeAgentProcess.classPath().split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p)) {
                Path jar = dir.resolve("classpath-" + (n++) + ".jar");
                pack(p, jar);
                entries.add(jar.toString());
            } else if (Files.isRegularFile(p)) {
                entries.add(entry);
            }
        }
        String classPath = String.join(File.pathSeparator, entries);
        Path archive = dir.resolve("agent.jsa");
        List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + "/bin/java");
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(List.of("-XX:ArchiveClassesAtExit=" + archive, "-cp", classPath, "io.winproxy.agent.Main",
                "plan", "--example-cluster", "--hns", "emulated"));
        Path log = dir.resolve("training.log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        p.getOutputStream().close();
        if (!p.waitFor(3, TimeUnit.MINUTES) || p.exitValue() != 0 || !Files.isRegularFile(archive)) {
            p.destroyForcibly();
            throw new IOException("the class-data-sharing training run failed; see " + log);
        }
        return new ClassDataArchive(archive, classPath);
    }

    private static void pack(Path folder, Path jar) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             Stream<Path> files = Files.walk(folder)) {
            for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                if (Files.isRegularFile(f)) {
                    out.putNextEntry(new JarEntry(folder.relativize(f).toString().replace(File.separatorChar, '/')));
                    try (var in = Files.newInputStream(f)) {
                        in.transferTo(out);
                    }
                    out.closeEntry();
                }
            }
        }
    }
}
