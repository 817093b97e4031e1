package io.actiongate.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;

/**
 * Jackson's messages quote the input ({@code Unrecognized token 'ghp_...'}), and input may hold a credential (issue
 * 42 item 1): only {@code io.actiongate.json.JsonErrors} reads them, and says a failure by kind and position. Any
 * other production class that puts such a message into an answer, a log line or a dead letter fails here.
 */
class JsonErrorsRuleTest {

    private static final Set<String> MESSAGE_METHODS = Set.of("getMessage", "getOriginalMessage",
            "getLocalizedMessage", "toString", "getMessageSuffix");

    @Test
    void shouldReadJacksonsMessagesOnlyInJsonErrors() {
        readsJacksonMessages(Modules.inAnyModuleOf(Modules.ORDER)).check(ProductionClasses.get());
    }

    @Test
    void shouldSeeAJacksonMessageReadOutsideJsonErrors() {
        JavaClasses fixtures = new ClassFileImporter().importClasses(QuotesTheInput.class);

        assertThat(readsJacksonMessages(HasName.Predicates.name(QuotesTheInput.class.getName()))
                .evaluate(fixtures).hasViolation()).isTrue();
    }

    /** Fixture: the 400 answer a security review found, Jackson's message passed through. */
    static final class QuotesTheInput {
        String refusal(String body) {
            try {
                new ObjectMapper().readTree(body);
                return null;
            } catch (JsonProcessingException e) {
                return "not JSON: " + e.getOriginalMessage();
            }
        }
    }

    private static ArchRule readsJacksonMessages(DescribedPredicate<? super JavaClass> classes) {
        DescribedPredicate<JavaCall<?>> message = DescribedPredicate.describe("a message of a Jackson exception",
                call -> call.getTarget().getOwner().isAssignableTo("com.fasterxml.jackson.core.JacksonException")
                        && MESSAGE_METHODS.contains(call.getTarget().getName()));
        return noClasses().that(classes)
                .and(not(HasName.Predicates.name("io.actiongate.json.JsonErrors")))
                .should().callMethodWhere(message)
                .because("Jackson's messages quote the input: JsonErrors describes a failure without it");
    }
}
