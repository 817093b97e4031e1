package io.actiongate.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.objectweb.asm.AnnotationVisitor;
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
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import io.actiongate.architecture.Modules.Module;
import io.actiongate.contract.ContractLimits;

/**
 * The limits of docs/contract.md live in {@link ContractLimits} only: no other main class declares a
 * constant of one, compares against its number or spells the id pattern. ArchUnit does not see literals, so the
 * condition reads each class's bytecode with ASM: the numbers pushed and the constants declared, every string
 * constant (also inside a string concatenation's recipe) and every annotation value. The values come from
 * {@link ContractLimits} itself, which assigns them in its static initializer so that a reader's bytecode loads the
 * field instead of holding a copy of the number (a compile-time constant would be copied by javac).
 */
class ContractLimitsRuleTest {

    /** A contract limit and the literals that are a copy of it. */
    enum Limit {
        SUMMARY("SUMMARY_MAX_CHARS", ContractLimits.SUMMARY_MAX_CHARS,
                Pattern.compile("\\b(at most " + ContractLimits.SUMMARY_MAX_CHARS + "|"
                        + ContractLimits.SUMMARY_MAX_CHARS + " characters)\\b")),
        DEFAULT_INPUT("DEFAULT_MAX_INPUT_BYTES", ContractLimits.DEFAULT_MAX_INPUT_BYTES, null),
        ID("ID_PATTERN", null, Pattern.compile(Pattern.quote(ContractLimits.ID_PATTERN.pattern())));

        final String field;
        final Integer number;
        final Pattern text;

        Limit(String field, Integer number, Pattern text) {
            this.field = field;
            this.number = number;
            this.text = text;
        }
    }

    /**
     * The modules whose classes must not copy the default input limit. 65,536 is also an ordinary buffer size (the
     * approval service's form cap, the connectors' body caps, the policy snapshot's key bound), so the number is
     * looked for only where the contract's input limit is applied: the client, the gate, the MCP gateway, the
     * node's HTTP API and the CLI.
     */
    static final List<String> INPUT_LIMIT_READERS = List.of("client", "topology", "mcp-gateway", "node", "cli");

    /** Classes that hold a value equal to a limit that is another fact, and why. */
    static final Map<String, Set<Limit>> OTHER_FACTS = Map.of(
            // X's own limit on a post, 280 weighted characters: X may change it, the contract would not follow
            // (XConnector names XClassifier's constant, which javac copies into it)
            "io.actiongate.connector.x.XClassifier", EnumSet.of(Limit.SUMMARY),
            "io.actiongate.connector.x.XConnector", EnumSet.of(Limit.SUMMARY),
            // an org id's shape, the policy module's (gate.task.default.org, TaskState.org_id): today the same
            // text as the ids', but the contract states no org id shape
            "io.actiongate.policy.TaskOwnership", EnumSet.of(Limit.ID));

    /**
     * The classes Avro generates from the released .avsc files: their schema text keeps the summary's doc ("at most
     * 280 characters") as every released schema version does. They hold no hand-written number or pattern.
     */
    static final String GENERATED = "io.actiongate.avro";

    private static final String HOME = ContractLimits.class.getName();

    @Test
    void shouldKeepEveryContractLimitInContractLimits() {
        copiesContractLimits(Modules.inAnyModuleOf(Modules.ORDER), ContractLimitsRuleTest::limitsOfModule)
                .check(ProductionClasses.get());
    }

    @Test
    void shouldStillNeedEachOtherFact() {
        // an entry whose class no longer holds the value would let a real copy in later: it goes when it is stale
        JavaClasses production = ProductionClasses.get();
        OTHER_FACTS.forEach((name, limits) -> assertThat(copies(production.get(name), EnumSet.allOf(Limit.class)))
                .as(name).extracting(Copy::limit).containsAll(limits));
    }

    /** Fixture: a reader that compares against the number, as node's ProposalBody did. */
    static final class ComparesAgainstTheNumber {
        boolean fits(String summary) {
            return summary.length() <= 280;
        }
    }

    /** Fixture: a constant of its own, as cli's ProposalJson and the client's ProposalMapper had. */
    static final class DeclaresAConstant {
        static final int MAX_SUMMARY_CHARS = 280;
    }

    /** Fixture: the default input limit as a configuration default, as GateConfig had it. */
    static final class DefaultsTheInputLimit {
        int limit(Integer configured) {
            return configured != null ? configured : 65_536;
        }
    }

    /** Fixture: the id pattern compiled again, as node's NodeAuth did. */
    static final class CompilesTheIdPattern {
        static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
    }

    /** Fixture: the id pattern inside a message built by concatenation (a string concatenation's recipe). */
    static final class SpellsTheIdPatternInAMessage {
        String refusal(String member) {
            return member + " must match [A-Za-z0-9._:-]{1,128}";
        }
    }

    /** An annotation with text, as picocli's {@code @Option(description = ...)}. */
    @interface Described {
        String value();
    }

    /** Fixture: the limit as prose in an annotation value, as ProposeCommand's option description had it. */
    static final class DescribesTheLimit {
        @Described("Plain language, at most 280 characters.")
        String summary;
    }

    /** Fixture: what every reader does now. */
    static final class ReadsTheHome {
        boolean fits(String summary, String id) {
            return summary.length() <= ContractLimits.SUMMARY_MAX_CHARS && ContractLimits.ID_PATTERN.matcher(id)
                    .matches() && id.length() * 3 <= ContractLimits.DEFAULT_MAX_INPUT_BYTES;
        }

        String refusal() {
            return "summary must be at most " + ContractLimits.SUMMARY_MAX_CHARS + " characters";
        }
    }

    @Test
    void shouldSeeEachKindOfCopy() {
        List<Class<?>> copying = List.of(ComparesAgainstTheNumber.class, DeclaresAConstant.class,
                DefaultsTheInputLimit.class, CompilesTheIdPattern.class, SpellsTheIdPatternInAMessage.class,
                DescribesTheLimit.class);
        JavaClasses fixtures = new ClassFileImporter().importClasses(copying);
        for (Class<?> fixture : copying) {
            assertThat(copiesContractLimits(HasName.Predicates.name(fixture.getName()),
                    c -> EnumSet.allOf(Limit.class)).evaluate(fixtures).hasViolation())
                    .as(fixture.getSimpleName()).isTrue();
        }
    }

    @Test
    void shouldLetAReaderOfContractLimitsPass() {
        // fails too when a limit becomes a compile-time constant again: javac would copy it into this reader
        JavaClasses fixtures = new ClassFileImporter().importClasses(ReadsTheHome.class);

        assertThat(copiesContractLimits(HasName.Predicates.name(ReadsTheHome.class.getName()),
                c -> EnumSet.allOf(Limit.class)).evaluate(fixtures).getFailureReport().getDetails()).isEmpty();
    }

    @Test
    void shouldSayWhereTheCopyIsAndWhatToRead() {
        JavaClasses fixtures = new ClassFileImporter().importClasses(ComparesAgainstTheNumber.class);

        assertThat(copiesContractLimits(HasName.Predicates.name(ComparesAgainstTheNumber.class.getName()),
                c -> EnumSet.allOf(Limit.class)).evaluate(fixtures).getFailureReport().getDetails())
                .singleElement().asString().contains("fits", "ContractLimitsRuleTest.java:",
                        "ContractLimits.SUMMARY_MAX_CHARS");
    }

    private static Set<Limit> limitsOfModule(JavaClass c) {
        if (c.getPackageName().equals(GENERATED)) {
            return Set.of();
        }
        Set<Limit> limits = EnumSet.of(Limit.SUMMARY, Limit.ID);
        if (Modules.of(c).map(Module::directory).filter(INPUT_LIMIT_READERS::contains).isPresent()) {
            limits.add(Limit.DEFAULT_INPUT);
        }
        Set<Limit> otherFacts = OTHER_FACTS.getOrDefault(c.getName(), Set.of());
        limits.removeAll(otherFacts);
        return limits;
    }

    private static ArchRule copiesContractLimits(DescribedPredicate<? super JavaClass> in,
            Function<JavaClass, Set<Limit>> limits) {
        return classes().that(in).and(not(HasName.Predicates.name(HOME)))
                .should(new ArchCondition<JavaClass>("read the contract's limits from ContractLimits, not copy them") {
                    @Override
                    public void check(JavaClass c, ConditionEvents events) {
                        for (Copy copy : copies(c, limits.apply(c))) {
                            events.add(SimpleConditionEvent.violated(c, copy.describe(c)));
                        }
                    }
                })
                .because("docs/contract.md's limits have one home, read by the client, the CLI, the node, the MCP "
                        + "gateway and the gate (ContractLimitsDocTest holds it to the contract's text)");
    }

    /** One copy of a limit: what, where ({@code member}, {@code line}, -1 unknown) and how. */
    record Copy(Limit limit, String member, int line, String how) {

        String describe(JavaClass c) {
            String file = c.getSource().flatMap(s -> s.getFileName()).orElse(c.getSimpleName() + ".java");
            return c.getName() + (member.isEmpty() ? "" : "." + member) + " (" + file + (line < 0 ? "" : ":" + line)
                    + ") " + how + ": read ContractLimits." + limit.field;
        }
    }

    /** The copies of {@code limits} in the class file of {@code c}. */
    static List<Copy> copies(JavaClass c, Set<Limit> limits) {
        if (limits.isEmpty()) {
            return List.of();
        }
        byte[] bytes = classFile(c);
        List<Copy> found = new ArrayList<>();
        new ClassReader(bytes).accept(new CopyFinder(limits, found), ClassReader.SKIP_FRAMES);
        return found;
    }

    private static byte[] classFile(JavaClass c) {
        var source = c.getSource().orElseThrow(() -> new IllegalStateException(
                "no class file for " + c.getName() + ": the rule cannot read what it does not see"));
        try (InputStream in = source.getUri().toURL().openStream()) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + source.getUri(), e);
        }
    }

    /** Collects the copies of a class: its constants, the numbers and strings its methods load, its annotations. */
    private static final class CopyFinder extends ClassVisitor {

        private final Set<Limit> limits;
        private final List<Copy> found;

        CopyFinder(Set<Limit> limits, List<Copy> found) {
            super(Opcodes.ASM9);
            this.limits = limits;
            this.found = found;
        }

        void number(Object value, String member, int line, String how) {
            if (value instanceof Integer || value instanceof Long) {
                long n = ((Number) value).longValue();
                for (Limit limit : limits) {
                    if (limit.number != null && limit.number == n) {
                        found.add(new Copy(limit, member, line, how + " " + n));
                    }
                }
            }
        }

        void text(Object value, String member, int line, String how) {
            if (value instanceof String s) {
                for (Limit limit : limits) {
                    if (limit.text != null && limit.text.matcher(s).find()) {
                        found.add(new Copy(limit, member, line, how + " \"" + s + "\""));
                    }
                }
            }
        }

        void constant(Object value, String member, int line, String how) {
            number(value, member, line, how);
            text(value, member, line, how);
        }

        AnnotationVisitor annotation(String member, int line) {
            return new AnnotationVisitor(Opcodes.ASM9) {
                @Override
                public void visit(String name, Object value) {
                    text(value, member, line, "spells the limit in an annotation:");
                }

                @Override
                public AnnotationVisitor visitAnnotation(String name, String descriptor) {
                    return this;
                }

                @Override
                public AnnotationVisitor visitArray(String name) {
                    return this;
                }
            };
        }

        @Override
        public AnnotationVisitor visitAnnotation(String descriptor, boolean visible) {
            return annotation("", -1);
        }

        @Override
        public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
            constant(value, name, -1, "declares the constant");
            return new FieldVisitor(Opcodes.ASM9) {
                @Override
                public AnnotationVisitor visitAnnotation(String annotation, boolean visible) {
                    return annotation(name, -1);
                }
            };
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                String[] exceptions) {
            String member = name.equals("<clinit>") ? "<static initializer>" : name;
            return new MethodVisitor(Opcodes.ASM9) {
                private int line = -1;

                @Override
                public void visitLineNumber(int number, Label start) {
                    line = number;
                }

                @Override
                public void visitIntInsn(int opcode, int operand) {
                    if (opcode == Opcodes.BIPUSH || opcode == Opcodes.SIPUSH) {
                        number(operand, member, line, "uses the number");
                    }
                }

                @Override
                public void visitLdcInsn(Object value) {
                    number(value, member, line, "uses the number");
                    text(value, member, line, "spells the limit in");
                }

                @Override
                public void visitInvokeDynamicInsn(String indy, String desc, Handle bootstrap, Object... arguments) {
                    // a string concatenation keeps its constant parts in the recipe, a bootstrap argument
                    for (Object argument : arguments) {
                        text(argument, member, line, "spells the limit in");
                    }
                }

                @Override
                public AnnotationVisitor visitAnnotation(String annotation, boolean visible) {
                    return annotation(member, line);
                }

                @Override
                public AnnotationVisitor visitParameterAnnotation(int parameter, String annotation, boolean visible) {
                    return annotation(member, line);
                }
            };
        }
    }
}
