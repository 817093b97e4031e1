package io.actiongate.helm;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;

/**
 * {@code helm template} of helm/actiongate through the helm-java bindings, parsed into one node per manifest.
 *
 * <p>helm-java's template returns only the release manifest, never the hooks (unlike the helm CLI). To inspect the
 * hook resources, {@link #render} renders a copy of the chart (under target/) whose {@code helm.sh/hook*}
 * annotations are renamed to {@link #VISIBLE_HOOK}{@code *}, so Helm keeps them in the manifest; {@link
 * #renderOriginal} renders the chart as it is, where Helm itself leaves every hook out.
 */
final class ChartRender {

    static final String HOOK = "helm.sh/hook";
    static final String VISIBLE_HOOK = "test.actiongate.io/hook";

    static final String RELEASE = "ag";
    static final String NAMESPACE = "agents";
    /** A Kubernetes version the chart supports (policy/v1 PodDisruptionBudget needs 1.21+). */
    static final String KUBE_VERSION = "1.30.0";

    private static final YAMLMapper YAML = new YAMLMapper();

    private final List<JsonNode> manifests;

    private ChartRender(List<JsonNode> manifests) {
        this.manifests = List.copyOf(manifests);
    }

    /** The chart directory, found from the topology module (Maven's basedir) or the repository root. */
    static Path chart() {
        Path base = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
        return Stream.of(base.resolve("../helm/actiongate"), base.resolve("helm/actiongate"))
                .map(Path::normalize)
                .filter(p -> Files.isRegularFile(p.resolve("Chart.yaml")))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("helm/actiongate not found from " + base));
    }

    /** Renders the chart with hooks made visible; {@code sets} as {@code --set key=value}, none: the defaults. */
    static ChartRender render(Map<String, Object> sets) {
        return render(chartWithVisibleHooks(), sets);
    }

    /** Renders the chart itself: Helm leaves its hooks out. */
    static ChartRender renderOriginal(Map<String, Object> sets) {
        return render(chart(), sets);
    }

    /** The copy of the chart with its hooks made visible, made once per JVM. */
    private static Path visibleHooks;

    /**
     * Copies the chart once per test JVM, into a directory of that JVM's own: Surefire runs test classes in more than
     * one JVM at a time, and a copy shared between them would be deleted under another JVM's render.
     */
    private static synchronized Path chartWithVisibleHooks() {
        if (visibleHooks != null) {
            return visibleHooks;
        }
        Path source = chart();
        Path copy = Path.of(System.getProperty("basedir", ".")).toAbsolutePath()
                .resolve("target/helm-visible-hooks/" + ProcessHandle.current().pid() + "/actiongate");
        try {
            if (Files.exists(copy)) {
                try (Stream<Path> old = Files.walk(copy)) {
                    for (Path p : old.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
            try (Stream<Path> files = Files.walk(source)) {
                for (Path from : files.toList()) {
                    Path to = copy.resolve(source.relativize(from).toString());
                    if (Files.isDirectory(from)) {
                        Files.createDirectories(to);
                    } else {
                        String text = Files.readString(from, StandardCharsets.UTF_8);
                        Files.writeString(to, text.replace(HOOK, VISIBLE_HOOK), StandardCharsets.UTF_8);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy the chart to " + copy, e);
        }
        visibleHooks = copy;
        return copy;
    }

    /** Renders the chart (hooks visible) as release {@code release} in namespace {@code namespace}. */
    static ChartRender renderRelease(String release, String namespace, Map<String, Object> sets) {
        return render(chartWithVisibleHooks(), release, namespace, sets);
    }

    private static ChartRender render(Path chart, Map<String, Object> sets) {
        return render(chart, RELEASE, NAMESPACE, sets);
    }

    private static ChartRender render(Path chart, String release, String namespace, Map<String, Object> sets) {
        TemplateCommand template = new Helm(chart).template().withName(release).withNamespace(namespace)
                .withKubeVersion(KUBE_VERSION);
        sets.forEach(template::set);
        return parse(template.call());
    }

    static ChartRender parse(String rendered) {
        List<JsonNode> docs = new ArrayList<>();
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(rendered)) {
            while (it.hasNextValue()) {
                JsonNode doc = it.nextValue();
                if (doc != null && !doc.isNull() && !doc.isMissingNode() && !doc.isEmpty()) {
                    docs.add(doc);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("rendered chart is not valid YAML", e);
        }
        return new ChartRender(docs);
    }

    List<JsonNode> all() {
        return manifests;
    }

    List<JsonNode> ofKind(String kind) {
        return manifests.stream().filter(m -> kind.equals(m.path("kind").asText())).toList();
    }

    /** The one manifest of {@code kind} named {@code name}. */
    JsonNode get(String kind, String name) {
        List<JsonNode> found = ofKind(kind).stream()
                .filter(m -> name.equals(m.path("metadata").path("name").asText()))
                .toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one " + kind + " named " + name + ", found " + found.size()
                    + " among " + names());
        }
        return found.get(0);
    }

    List<String> names() {
        return manifests.stream().map(m -> m.path("kind").asText() + "/" + m.path("metadata").path("name").asText())
                .toList();
    }

    /** The workloads: the gate StatefulSet, the Deployments and the Job. */
    List<JsonNode> workloads() {
        return manifests.stream()
                .filter(m -> List.of("StatefulSet", "Deployment", "Job").contains(m.path("kind").asText()))
                .toList();
    }

    static JsonNode podSpec(JsonNode workload) {
        return workload.path("spec").path("template").path("spec");
    }

    static JsonNode container(JsonNode workload) {
        JsonNode containers = podSpec(workload).path("containers");
        if (containers.size() != 1) {
            throw new AssertionError("expected one container in " + workload.path("metadata").path("name"));
        }
        return containers.get(0);
    }

    static List<String> args(JsonNode workload) {
        List<String> args = new ArrayList<>();
        container(workload).path("args").forEach(a -> args.add(a.asText()));
        return args;
    }

    /** The properties file of a rendered ConfigMap, as actiongate's loader would read it. */
    static Map<String, String> properties(JsonNode configMap) {
        Properties props = new Properties();
        try {
            props.load(new StringReader(configMap.path("data").path("actiongate.properties").asText()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> flat = new TreeMap<>();
        props.stringPropertyNames().forEach(k -> flat.put(k.trim(), props.getProperty(k).trim()));
        return flat;
    }
}
