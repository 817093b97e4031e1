package io.actiongate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A command's help lists the exit codes it returns, from {@link ExitCodes} ({@code propose --help}
 * said 4, 5 and 6 while the command exits 5, 6 and 7).
 */
class ExitCodesHelpTest {

    @ParameterizedTest
    @CsvSource({
        "propose, 5 6 7",
        "status, 3",
        "decide, 3",
        "topics create, 4"})
    void shouldListTheCommandsExitCodesFromExitCodes(String command, String own) {
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.add("--help");
        StringWriter out = new StringWriter();
        int code = Main.run(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(new StringWriter(), true));

        assertThat(code).isZero();
        String help = out.toString();
        List<Integer> expected = new ArrayList<>(List.of(ExitCodes.OK, ExitCodes.ERROR, ExitCodes.USAGE));
        for (String n : own.split(" ")) {
            expected.add(Integer.parseInt(n));
        }
        assertThat(listed(help)).as(help).containsExactlyElementsOf(expected);
        String flat = help.replaceAll("\\s+", " ");
        for (int n : expected) {
            assertThat(flat).contains(" " + n + " " + ExitCodes.meaning(n));
        }
    }

    @Test
    void shouldListProposesOwnCodesAsTheConstantsItReturns() {
        StringWriter out = new StringWriter();
        Main.run(new String[] {"propose", "--help"}, new PrintWriter(out, true), new PrintWriter(new StringWriter(), true));

        assertThat(out.toString().replaceAll("\\s+", " "))
                .contains(" 5 the gate's first receipt is REJECTED")
                .contains(" 6 identity conflict")
                .contains(" 7 no receipt within --wait")
                .doesNotContain("4 REJECTED");
    }

    @Test
    void shouldDocumentEveryExitCodeInTheOperatorsTable() throws Exception {
        Path doc = Path.of(System.getProperty("user.dir")).getParent().resolve("docs/operating.md");
        String text = Files.readString(doc);
        List<Integer> documented = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^\\| (\\d+) \\|").matcher(text.substring(text.indexOf("### Exit codes")));
        while (m.find()) {
            documented.add(Integer.parseInt(m.group(1)));
        }
        assertThat(documented).containsExactly(ExitCodes.OK, ExitCodes.ERROR, ExitCodes.USAGE, ExitCodes.NOT_FOUND,
                ExitCodes.DRIFT, ExitCodes.REJECTED, ExitCodes.CONFLICT, ExitCodes.NO_RECEIPT);
    }

    /** The codes of the help's "Exit codes:" section, in order. */
    private static List<Integer> listed(String help) {
        int at = help.indexOf("Exit codes:");
        assertThat(at).as("an 'Exit codes:' section in\n" + help).isNotNegative();
        List<Integer> codes = new ArrayList<>();
        for (String line : help.substring(at).split("\n")) {
            Matcher m = Pattern.compile("^\\s+(\\d+)\\s{2,}").matcher(line);
            if (m.find()) {
                codes.add(Integer.parseInt(m.group(1)));
            } else if (!codes.isEmpty() && !line.startsWith(" ")) {
                break;
            }
        }
        return codes;
    }
}
