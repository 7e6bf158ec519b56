import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Adds THIRD-PARTY-NOTICES and SHA256SUMS to the distribution zip the assembly made (a build step of the installer
 * module, run with the JDK's single-file launcher at package):
 *
 *   java FinishDistribution.java ZIP DEPENDENCY_LIST LOCAL_REPOSITORY TIMESTAMP
 *
 * THIRD-PARTY-NOTICES lists each bundled artifact of DEPENDENCY_LIST (maven-dependency-plugin's list of the runtime
 * dependencies that the assembly puts into lib\) with its version and licence, read from the artifact's POM in
 * LOCAL_REPOSITORY or, when it names none, from its nearest parent POM that does; an artifact without a licence
 * anywhere fails the build. SHA256SUMS has one line per file of the zip ("<sha256>  <path>", sha256sum's format),
 * THIRD-PARTY-NOTICES included. The zip is rewritten with the entries it had, in the same order and with the same
 * times, followed by the two new ones with TIMESTAMP (project.build.outputTimestamp), so the build stays
 * reproducible. Exit code 1 with one line on stderr on any failure.
 */
public final class FinishDistribution {
    private static final String OWN_GROUP = "io.winproxy";
    private static final Pattern LISTED = Pattern.compile(
            "^\\s*([\\w.\\-]+):([\\w.\\-]+):([\\w.\\-]+)(?::([\\w.\\-]+))?:([\\w.\\-+]+):(compile|runtime|test|provided)\\b.*$");

    private record Artifact(String groupId, String artifactId, String classifier, String version) {
        String coordinates() {
            return groupId + ":" + artifactId + ":" + version + (classifier.isEmpty() ? "" : ":" + classifier);
        }

        /** The name the assembly gives it in lib\. */
        String jar() {
            return artifactId + "-" + version + (classifier.isEmpty() ? "" : "-" + classifier) + ".jar";
        }
    }

    private record License(String name, String url) {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: FinishDistribution ZIP DEPENDENCY_LIST LOCAL_REPOSITORY TIMESTAMP");
            System.exit(2);
        }
        try {
            finish(Path.of(args[0]), Path.of(args[1]), Path.of(args[2]), Instant.parse(args[3]));
        } catch (IOException | RuntimeException e) {
            System.err.println("FinishDistribution: " + e.getMessage());
            System.exit(1);
        }
    }

    private static void finish(Path zip, Path dependencyList, Path repository, Instant timestamp) throws Exception {
        Map<String, byte[]> files = new LinkedHashMap<>();
        Map<String, ZipEntry> entries = new LinkedHashMap<>();
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                if (entry.getName().equals("THIRD-PARTY-NOTICES") || entry.getName().equals("SHA256SUMS")) {
                    continue; // a rerun on an already finished zip
                }
                entries.put(entry.getName(), entry);
                files.put(entry.getName(), entry.isDirectory() ? null : in.readAllBytes());
            }
        }
        // The assembly's lib\ holds the agent's runtime closure; the list names every artifact of the module's
        // tree (a scope seen from the installer need not be the agent's), so the zip decides which are bundled.
        List<Artifact> bundled = bundled(files.keySet(), artifacts(dependencyList));
        // winproxy's own modules are not third-party.
        List<Artifact> artifacts = bundled.stream().filter(a -> !a.groupId.equals(OWN_GROUP)).toList();
        byte[] notices = notices(artifacts, repository).getBytes(StandardCharsets.UTF_8);
        Map<String, byte[]> summed = new TreeMap<>();
        files.forEach((name, bytes) -> {
            if (bytes != null) {
                summed.put(name, bytes);
            }
        });
        summed.put("THIRD-PARTY-NOTICES", notices);
        StringBuilder sums = new StringBuilder();
        for (Map.Entry<String, byte[]> file : summed.entrySet()) {
            sums.append(sha256(file.getValue())).append("  ").append(file.getKey()).append('\n');
        }

        Path rewritten = zip.resolveSibling(zip.getFileName() + ".tmp");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(rewritten))) {
            for (Map.Entry<String, ZipEntry> entry : entries.entrySet()) {
                ZipEntry copy = new ZipEntry(entry.getKey());
                copy.setLastModifiedTime(entry.getValue().getLastModifiedTime());
                out.putNextEntry(copy);
                byte[] bytes = files.get(entry.getKey());
                if (bytes != null) {
                    out.write(bytes);
                }
                out.closeEntry();
            }
            add(out, "THIRD-PARTY-NOTICES", notices, timestamp);
            add(out, "SHA256SUMS", sums.toString().getBytes(StandardCharsets.US_ASCII), timestamp);
        }
        Files.move(rewritten, zip, StandardCopyOption.REPLACE_EXISTING);
        System.out.println("FinishDistribution: added THIRD-PARTY-NOTICES and SHA256SUMS (" + summed.size()
                + " files) to " + zip);
    }

    private static void add(ZipOutputStream out, String name, byte[] bytes, Instant timestamp) throws IOException {
        ZipEntry entry = new ZipEntry(name);
        entry.setLastModifiedTime(FileTime.from(timestamp));
        out.putNextEntry(entry);
        out.write(bytes);
        out.closeEntry();
    }

    /**
     * The listed artifacts whose jar is in lib\; fails when a jar in lib\ (but the installer's own) is not listed,
     * since it would have no notice.
     */
    private static List<Artifact> bundled(Iterable<String> names, List<Artifact> listed) {
        List<String> jars = new ArrayList<>();
        names.forEach(name -> {
            if (name.startsWith("lib/") && name.endsWith(".jar")) {
                jars.add(name);
            }
        });
        List<Artifact> bundled = listed.stream().filter(a -> jars.contains("lib/" + a.jar())).toList();
        List<String> unlisted = jars.stream().filter(name -> !name.equals("lib/winproxy-installer.jar"))
                .filter(name -> bundled.stream().noneMatch(a -> name.equals("lib/" + a.jar()))).toList();
        if (!unlisted.isEmpty()) {
            throw new IllegalStateException("in lib\\ but not in the dependency list, so without a notice: " + unlisted);
        }
        return bundled;
    }

    private static List<Artifact> artifacts(Path dependencyList) throws IOException {
        List<Artifact> artifacts = new ArrayList<>();
        for (String line : Files.readAllLines(dependencyList, StandardCharsets.UTF_8)) {
            Matcher m = LISTED.matcher(line.replaceAll("\u001B\\[[;\\d]*m", ""));
            // pom-only dependencies put nothing into lib\.
            if (m.matches() && m.group(3).equals("jar")) {
                artifacts.add(new Artifact(m.group(1), m.group(2), m.group(4) == null ? "" : m.group(4), m.group(5)));
            }
        }
        if (artifacts.isEmpty()) {
            throw new IllegalStateException(dependencyList + " lists no dependency");
        }
        artifacts.sort((a, b) -> a.coordinates().compareTo(b.coordinates()));
        return artifacts;
    }

    private static String notices(List<Artifact> artifacts, Path repository) throws Exception {
        StringBuilder text = new StringBuilder();
        text.append("winproxy bundles the following third-party artifacts in lib\\ (lib\\jnidispatch.dll is the\n")
                .append("native library of net.java.dev.jna:jna, unpacked from its jar). Each is distributed under\n")
                .append("the licence named here, as its Maven POM declares it; the licence texts are at the URLs\n")
                .append("given and inside the jars (META-INF). Generated by the build from the dependency tree.\n\n");
        for (Artifact artifact : artifacts) {
            List<License> licenses = licenses(repository, artifact.groupId, artifact.artifactId, artifact.version);
            if (licenses.isEmpty()) {
                throw new IllegalStateException("no licence in the POM of " + artifact.coordinates()
                        + " or of its parents");
            }
            text.append(artifact.coordinates()).append(" (lib\\").append(artifact.jar()).append(")\n");
            for (License license : licenses) {
                text.append("    ").append(license.name);
                if (!license.url.isEmpty()) {
                    text.append(" <").append(license.url).append('>');
                }
                text.append('\n');
            }
        }
        return text.toString().replace("\n", "\r\n");
    }

    /** The licences of the POM, else of its nearest parent that declares any. */
    private static List<License> licenses(Path repository, String groupId, String artifactId, String version)
            throws Exception {
        Path pom = repository.resolve(groupId.replace('.', '/')).resolve(artifactId).resolve(version)
                .resolve(artifactId + "-" + version + ".pom");
        if (!Files.isRegularFile(pom)) {
            throw new IllegalStateException("no POM " + pom);
        }
        Document document;
        try (InputStream in = Files.newInputStream(pom)) {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setExpandEntityReferences(false);
            document = factory.newDocumentBuilder().parse(in);
        }
        Element project = document.getDocumentElement();
        List<License> licenses = new ArrayList<>();
        Element declared = child(project, "licenses");
        if (declared != null) {
            for (Node n = declared.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element license && license.getTagName().equals("license")) {
                    licenses.add(new License(text(license, "name"), text(license, "url")));
                }
            }
        }
        Element parent = child(project, "parent");
        if (licenses.isEmpty() && parent != null) {
            return licenses(repository, text(parent, "groupId"), text(parent, "artifactId"), text(parent, "version"));
        }
        return licenses;
    }

    private static Element child(Element element, String name) {
        for (Node n = element.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static String text(Element element, String name) {
        Element child = child(element, name);
        return child == null ? "" : child.getTextContent().strip().replaceAll("\\s+", " ");
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
