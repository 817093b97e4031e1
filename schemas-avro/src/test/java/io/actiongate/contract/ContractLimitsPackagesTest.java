package io.actiongate.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The TypeScript and Python tool host packages (clients/) cannot read {@link ContractLimits}, so each states the
 * limits once, as a named constant, and this test reads their sources: a limit changed in Java and not in a package,
 * or the other way round, fails here. How they count a summary's length (UTF-16 code units) is their own tests' job,
 * run by node's ClientPackagesIT.
 */
class ContractLimitsPackagesTest {

    private static String typescript;
    private static String python;

    @BeforeAll
    static void readThePackages() throws IOException {
        typescript = RepositoryFiles.read("clients/typescript/src/client.ts");
        python = RepositoryFiles.read("clients/python/src/actiongate_client/client.py");
    }

    /** The one capture of {@code declaration} in {@code source}; fails when it is missing or declared twice. */
    private static String declared(String source, String declaration) {
        List<String> found = new ArrayList<>();
        Matcher m = Pattern.compile(declaration, Pattern.MULTILINE).matcher(source);
        while (m.find()) {
            found.add(m.group(1));
        }
        assertThat(found).as("declared once: /%s/", declaration).hasSize(1);
        return found.get(0);
    }

    private static String idShape() {
        return ContractLimits.ID_CHARACTERS + "{1," + ContractLimits.ID_MAX_CHARS + "}";
    }

    @Test
    void shouldLimitTheSummaryInTheTypeScriptPackageAsInJava() {
        String limit = declared(typescript, "^export const SUMMARY_MAX_CHARS = (\\d+);");

        assertThat(Integer.parseInt(limit)).isEqualTo(ContractLimits.SUMMARY_MAX_CHARS);
        assertThat(typescript).doesNotContain("> " + ContractLimits.SUMMARY_MAX_CHARS);
    }

    @Test
    void shouldLimitTheSummaryInThePythonPackageAsInJava() {
        String limit = declared(python, "^SUMMARY_MAX_CHARS = (\\d+)$");

        assertThat(Integer.parseInt(limit)).isEqualTo(ContractLimits.SUMMARY_MAX_CHARS);
        assertThat(python).doesNotContain("> " + ContractLimits.SUMMARY_MAX_CHARS);
    }

    @Test
    void shouldShapeIdsInTheTypeScriptPackageAsInJava() {
        String pattern = declared(typescript, "^export const ID_PATTERN = /\\^(.+)\\$/;");

        assertThat(pattern).isEqualTo(idShape());
    }

    @Test
    void shouldShapeIdsInThePythonPackageAsInJava() {
        String pattern = declared(python, "^ID_PATTERN = re\\.compile\\(r\"(.+)\\\\Z\"\\)$");

        assertThat(pattern).isEqualTo(idShape());
    }
}
