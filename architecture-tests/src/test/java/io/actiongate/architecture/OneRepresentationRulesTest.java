package io.actiongate.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvent;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.connector.spi.Validation;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;

/**
 * One representation per fact: the status types, the topic names and the classifiers have one home each. ArchUnit
 * does not see literals or the order of instructions, so both rules read each class's bytecode with ASM:
 * <ul>
 *   <li>a topic's name comes from {@link Topics} ({@code Topics.X.name(prefix)}): no other class concatenates a
 *       prefix with a topic's name or spells a topic's default full name. (The default prefix alone is not looked
 *       for: {@link Topics#DEFAULT_PREFIX} is a compile-time constant, which javac copies into every reader, and it
 *       must stay one because picocli's option descriptions name it.)</li>
 *   <li>no status is copied from one enum to another by {@code Y.valueOf(x.name())}: where the Java type and the
 *       wire's enum differ, each constant names its counterpart (a table such as {@code WireEnums}, checked total by
 *       a test), so a renamed or added constant fails at build time, not on a stream thread;</li>
 *   <li>a connector <em>has</em> a classifier ({@code Connector.classifier()}): no class is both a {@link Connector}
 *       and an {@link OperationClassifier}, which is what made every connector forward classify and validate.</li>
 * </ul>
 */
class OneRepresentationRulesTest {

    /** The home of the topic names and the classes Avro generates (their schema text names no topic). */
    static final Set<String> TOPIC_HOMES = Set.of(Topics.class.getName(), TopicSpec.class.getName());
    static final String GENERATED = "io.actiongate.avro";

    /** The short names of the contract's topics: {@code proposals}, {@code decisions}, ... */
    static final Set<String> TOPIC_NAMES = Topics.ALL.stream().map(spec -> spec.name(""))
            .collect(Collectors.toUnmodifiableSet());

    @Test
    void shouldTakeTopicNamesOnlyFromTopics() {
        buildsTopicNames(Modules.inAnyModuleOf(Modules.ORDER)).check(ProductionClasses.get());
    }

    @Test
    void shouldLetNoConnectorBeAClassifier() {
        connectorsAreClassifiers(Modules.inAnyModuleOf(Modules.ORDER)).check(ProductionClasses.get());
    }

    /** Fixture: a connector that is its own classifier and forwards to it, as every bundled connector did. */
    static final class ForwardingConnector implements Connector, OperationClassifier {
        @Override
        public String provider() {
            return "fixture";
        }

        @Override
        public OperationClassifier classifier() {
            return this;
        }

        @Override
        public Classification classify(String operation, String inputJson) {
            return new Classification(Classification.Kind.UNSUPPORTED, "fixture");
        }

        @Override
        public Validation validate(String operation, String inputJson) {
            return new Validation(false, "fixture");
        }

        @Override
        public DispatchResult dispatch(DispatchRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public LookupResult lookup(LookupRequest request) {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void shouldSeeAConnectorThatIsAClassifier() {
        assertThat(violations(ForwardingConnector.class, OneRepresentationRulesTest::connectorsAreClassifiers))
                .singleElement().asString().contains("ForwardingConnector");
    }

    private static ArchRule connectorsAreClassifiers(DescribedPredicate<? super JavaClass> in) {
        return noClasses().that(in).and().areAssignableTo(Connector.class).should()
                .beAssignableTo(OperationClassifier.class)
                .because("a connector has a classifier (Connector.classifier()) rather than forwarding classify and "
                        + "validate to one");
    }

    @Test
    void shouldNotCopyStatusesBetweenEnumsByName() {
        copiesEnumsByName(Modules.inAnyModuleOf(Modules.ORDER)).check(ProductionClasses.get());
    }

    /** Fixture: a topic name by hand, as the approval service's BookFeed and DecisionPublisher had them. */
    static final class ConcatenatesATopicName {
        String decisions(String topicPrefix) {
            return topicPrefix + "decisions";
        }
    }

    /** Fixture: a topic's default full name. */
    static final class SpellsADefaultTopicName {
        static final String RECEIPTS = "actiongate." + "receipts";
    }

    /** Fixture: what every reader does now. */
    static final class ReadsTopics {
        String decisions(String prefix) {
            return Topics.DECISIONS.name(prefix) + " and " + Topics.DEFAULT_PREFIX;
        }

        String notATopic(String prefix) {
            return prefix + "approver-state" + " has " + "decisions";
        }
    }

    enum Observed { SUCCEEDED, FAILED }

    enum OnTheWire { SUCCEEDED, FAILED }

    /** Fixture: a status copied by name, as OutcomeMapper, OutcomeProcessor and StateRecords did. */
    static final class CopiesByName {
        OnTheWire wire(Observed status) {
            return OnTheWire.valueOf(status.name());
        }
    }

    /** Fixture: a status read by name from a stored string, and a table: neither is a copy between enums. */
    static final class ReadsAName {
        Observed stored(String name) {
            return Observed.valueOf(name);
        }

        OnTheWire wire(Observed status) {
            return switch (status) {
                case SUCCEEDED -> OnTheWire.SUCCEEDED;
                case FAILED -> OnTheWire.FAILED;
            };
        }
    }

    @Test
    void shouldSeeEachKindOfHandMadeTopicName() {
        for (Class<?> fixture : List.of(ConcatenatesATopicName.class, SpellsADefaultTopicName.class)) {
            assertThat(violations(fixture, OneRepresentationRulesTest::buildsTopicNames)).as(fixture.getSimpleName())
                    .isNotEmpty();
        }
        assertThat(violations(ConcatenatesATopicName.class, OneRepresentationRulesTest::buildsTopicNames))
                .singleElement().asString().contains("decisions", "OneRepresentationRulesTest.java:", "Topics");
        assertThat(violations(ReadsTopics.class, OneRepresentationRulesTest::buildsTopicNames)).isEmpty();
    }

    @Test
    void shouldSeeAStatusCopiedByName() {
        assertThat(violations(CopiesByName.class, OneRepresentationRulesTest::copiesEnumsByName)).singleElement()
                .asString().contains("wire", "OnTheWire.valueOf", "Observed.name()");
        assertThat(violations(ReadsAName.class, OneRepresentationRulesTest::copiesEnumsByName)).isEmpty();
    }

    private static List<String> violations(Class<?> fixture,
                                           Function<DescribedPredicate<? super JavaClass>, ArchRule> rule) {
        JavaClasses fixtures = new ClassFileImporter().importClasses(fixture);
        return rule.apply(HasName.Predicates.name(fixture.getName())).evaluate(fixtures).getFailureReport()
                .getDetails();
    }

    private static ArchRule buildsTopicNames(DescribedPredicate<? super JavaClass> in) {
        return classes().that(in).should(new ArchCondition<JavaClass>("take topic names from Topics") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                if (TOPIC_HOMES.contains(c.getName()) || c.getPackageName().equals(GENERATED)) {
                    return;
                }
                scan(c, new Finder() {
                    @Override
                    void string(String s, String member, int line) {
                        if (s.startsWith(Topics.DEFAULT_PREFIX)
                                && TOPIC_NAMES.contains(s.substring(Topics.DEFAULT_PREFIX.length()))) {
                            events.add(violated(c, member, line, "spells the topic name \"" + s
                                    + "\": use Topics.X.name(prefix)"));
                        }
                    }

                    @Override
                    void concatenation(String recipe, String member, int line) {
                        // an argument (\1) followed by a topic's name and nothing else of it: prefix + "decisions"
                        for (String name : TOPIC_NAMES) {
                            int at = recipe.indexOf('\u0001' + name);
                            int end = at + 1 + name.length();
                            if (at >= 0 && (end == recipe.length() || recipe.charAt(end) == '\u0001')) {
                                events.add(violated(c, member, line, "concatenates a prefix with the topic name \""
                                        + name + "\": use Topics.X.name(prefix)"));
                            }
                        }
                    }
                });
            }
        }).because("a topic's name has one home, Topics (docs/contract.md section 2), so a renamed or prefixed topic "
                + "cannot be missed somewhere");
    }

    private static ArchRule copiesEnumsByName(DescribedPredicate<? super JavaClass> in) {
        return classes().that(in).should(new ArchCondition<JavaClass>("not copy an enum to another by name") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                scan(c, new Finder() {
                    @Override
                    void copy(String from, String to, String member, int line) {
                        events.add(violated(c, member, line, "copies " + from + ".name() into " + to
                                + ".valueOf: map the constants in one table (each naming its counterpart)"));
                    }
                });
            }
        }).because("one representation per fact: a status has one Java type, and where the wire's enum differs one "
                + "documented table maps every constant");
    }

    private static ConditionEvent violated(JavaClass c, String member, int line, String what) {
        String file = c.getSource().flatMap(s -> s.getFileName()).orElse(c.getSimpleName() + ".java");
        return SimpleConditionEvent.violated(c, c.getName() + "." + member + " (" + file + (line < 0 ? "" : ":" + line)
                + ") " + what);
    }

    /** What a scan reports: string constants, concatenation recipes and {@code Y.valueOf(x.name())}. */
    private abstract static class Finder {
        void string(String s, String member, int line) {
        }

        void concatenation(String recipe, String member, int line) {
        }

        void copy(String from, String to, String member, int line) {
        }
    }

    private static void scan(JavaClass c, Finder finder) {
        var source = c.getSource().orElseThrow(() -> new IllegalStateException(
                "no class file for " + c.getName() + ": the rule cannot read what it does not see"));
        byte[] bytes;
        try (InputStream in = source.getUri().toURL().openStream()) {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + source.getUri(), e);
        }
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature,
                                           Object value) {
                if (value instanceof String s) {
                    finder.string(s, name, -1);
                }
                return null;
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                String member = name.equals("<clinit>") ? "<static initializer>" : name;
                return new MethodVisitor(Opcodes.ASM9) {
                    private int line = -1;
                    /** The owner of a {@code name()} call that was the instruction just before, else null. */
                    private String named;

                    @Override
                    public void visitLineNumber(int number, Label start) {
                        line = number;
                    }

                    @Override
                    public void visitLdcInsn(Object value) {
                        named = null;
                        if (value instanceof String s) {
                            finder.string(s, member, line);
                        }
                    }

                    @Override
                    public void visitInvokeDynamicInsn(String indy, String desc, Handle bootstrap,
                                                       Object... arguments) {
                        named = null;
                        if (bootstrap.getName().equals("makeConcatWithConstants") && arguments.length > 0
                                && arguments[0] instanceof String recipe) {
                            finder.concatenation(recipe, member, line);
                            for (String part : recipe.split("[\u0001\u0002]")) {
                                finder.string(part, member, line);
                            }
                        }
                    }

                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String desc,
                                                boolean isInterface) {
                        if (opcode == Opcodes.INVOKESTATIC && method.equals("valueOf")
                                && desc.equals("(Ljava/lang/String;)L" + owner + ";") && named != null
                                && !named.equals(owner)) {
                            finder.copy(simple(named), simple(owner) + "", member, line);
                        }
                        named = opcode == Opcodes.INVOKEVIRTUAL && method.equals("name")
                                && desc.equals("()Ljava/lang/String;") ? owner : null;
                    }

                    @Override
                    public void visitInsn(int opcode) {
                        named = null;
                    }

                    @Override
                    public void visitVarInsn(int opcode, int var) {
                        named = null;
                    }

                    @Override
                    public void visitFieldInsn(int opcode, String owner, String field, String descriptor) {
                        named = null;
                    }

                    @Override
                    public void visitTypeInsn(int opcode, String type) {
                        named = null;
                    }

                    @Override
                    public void visitJumpInsn(int opcode, Label label) {
                        named = null;
                    }
                };
            }
        }, ClassReader.SKIP_FRAMES);
    }

    private static String simple(String internalName) {
        String name = internalName.replace('/', '.');
        name = name.substring(name.lastIndexOf('.') + 1);
        return name.substring(name.lastIndexOf('$') + 1);
    }
}
