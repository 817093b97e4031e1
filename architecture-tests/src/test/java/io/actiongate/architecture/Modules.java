package io.actiongate.architecture;

import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;

/**
 * The modules in their layered order: a module's production classes depend only on modules above it in
 * {@link #ORDER}. The README's module picture lists the same modules in the same order (ModuleOrderTest), and every
 * module of the root pom is here (ModuleOrderTest), so a new module cannot escape the rules.
 */
final class Modules {

    /** A module: its directory under the repository root and its artifact id. */
    record Module(String directory, String artifactId) {

        /** The layer's name in ArchUnit's messages. */
        String layer() {
            return directory;
        }
    }

    /**
     * The layered order. Three placements follow from what the modules are, not from convenience:
     * {@code mcp-gateway} sits below {@code topology} (it asks the gate's policy checks whether a read is trusted),
     * {@code approver} above {@code node} and {@code cli} (the approval service is one of the roles a node runs,
     * {@code run --roles=approver}), and {@code chaos} above {@code devkit} (the dev kit's jar, which
     * {@code ./actiongate} runs, carries the {@code chaos} command; the production {@code cli} never does).
     */
    static final List<Module> ORDER = List.of(
            new Module("secrets", "actiongate-secrets"),
            new Module("connector-spi", "actiongate-connector-spi"),
            new Module("schemas-avro", "actiongate-schemas-avro"),
            new Module("client", "actiongate-client"),
            new Module("examples/client-example", "actiongate-example-client"),
            new Module("topic-admin", "actiongate-topic-admin"),
            new Module("policy", "actiongate-policy"),
            new Module("connectors", "actiongate-connectors"),
            new Module("storage", "actiongate-storage"),
            new Module("config", "actiongate-config"),
            new Module("runtime", "actiongate-runtime"),
            new Module("topology", "actiongate-topology"),
            new Module("mcp-gateway", "actiongate-mcp-gateway"),
            new Module("workers", "actiongate-workers"),
            new Module("approver", "actiongate-approver"),
            new Module("notifier", "actiongate-notifier"),
            new Module("node", "actiongate-node"),
            new Module("cli", "actiongate-cli"),
            new Module("sandbox", "actiongate-sandbox"),
            new Module("test-support", "actiongate-test-support"),
            new Module("chaos", "actiongate-chaos"),
            new Module("devkit", "actiongate-devkit"),
            new Module("baseline-postgres", "actiongate-baseline-postgres"),
            new Module("load-tests", "actiongate-load-tests"));

    /** Modules of the root pom that hold tests only, so no layer: they depend on everything above them. */
    static final List<String> TESTS_ONLY = List.of("approver-it", "architecture-tests");

    /** Modules the production artifact ({@code cli}'s jar) is built from: everything above {@code sandbox}. */
    static List<Module> production() {
        return ORDER.subList(0, ORDER.indexOf(module("sandbox")));
    }

    static Module module(String directory) {
        return ORDER.stream().filter(m -> m.directory().equals(directory)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no module " + directory));
    }

    /** A reactor build: {@code <module dir>/target/classes/...} or {@code .../<artifactId>-<version>.jar!/...}. */
    private static final Pattern CLASSES_DIR = Pattern.compile("/([^/]+)/target/classes/");
    private static final Pattern JAR = Pattern.compile("/(actiongate-[a-z-]+?)-\\d[^/]*\\.jar!/");

    /** The module a class was imported from, by where its class file lies. */
    static Optional<Module> of(JavaClass javaClass) {
        return javaClass.getSource().map(source -> source.getUri()).flatMap(Modules::of);
    }

    static Optional<Module> of(URI location) {
        String text = location.toString();
        Matcher jar = JAR.matcher(text);
        if (jar.find()) {
            String artifactId = jar.group(1);
            return ORDER.stream().filter(m -> m.artifactId().equals(artifactId)).findFirst();
        }
        Matcher dir = CLASSES_DIR.matcher(text);
        if (dir.find()) {
            String last = dir.group(1);
            return ORDER.stream().filter(m -> m.directory().equals(last) || m.directory().endsWith("/" + last))
                    .findFirst();
        }
        return Optional.empty();
    }

    static DescribedPredicate<JavaClass> inModule(Module module) {
        return DescribedPredicate.describe("classes of module " + module.directory(),
                c -> of(c).filter(module::equals).isPresent());
    }

    static DescribedPredicate<JavaClass> inAnyModuleOf(List<Module> modules) {
        return DescribedPredicate.describe("classes of modules " + modules.stream().map(Module::directory).toList(),
                c -> of(c).filter(modules::contains).isPresent());
    }

    private Modules() {
    }
}
