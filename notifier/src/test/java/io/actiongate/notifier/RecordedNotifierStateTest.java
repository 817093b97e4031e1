package io.actiongate.notifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The notifier's state ({@code notifier-state}, claims and results of notices) as the build of its time wrote it
 * (src/test/resources/recorded/{generator}-{commit}/notifier, made by formats/record.sh with the generator of
 * formats/generators; formats/README.md), read by the current code: every record decodes into the values it was
 * written with.
 */
class RecordedNotifierStateTest {

    private record Recording(String generator, Path dir) {
    }

    private static List<Recording> recordings() {
        try (Stream<Path> dirs = Files.list(root())) {
            return dirs.map(d -> d.resolve("notifier")).filter(Files::isDirectory).sorted()
                    .map(d -> new Recording(d.getParent().getFileName().toString(), d)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path root() {
        try {
            return Path.of(RecordedNotifierStateTest.class.getResource("/recorded").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String[]> rows(Path file) throws IOException {
        return Files.readAllLines(file, StandardCharsets.UTF_8).stream().filter(l -> !l.isBlank())
                .map(l -> l.split("\t")).toList();
    }

    @Test
    void shouldRecordTheStateOfEveryReleaseThatHadTheTopic() {
        // 06d6f3f created notifier-state; its records have not changed since
        assertThat(recordings()).extracting(Recording::generator).containsExactly("g6-06d6f3f");
    }

    @Test
    void shouldReadEveryRecordedClaimAndResultWithTheValuesItWasWrittenWith() throws IOException {
        for (Recording r : recordings()) {
            List<String[]> index = rows(r.dir().resolve("state.tsv"));
            List<String[]> facts = rows(r.dir().resolve("facts.tsv"));
            assertThat(index).as("%s: one record per fact", r.generator()).hasSameSizeAs(facts);
            for (int i = 0; i < index.size(); i++) {
                byte[] value = Files.readAllBytes(r.dir().resolve(index.get(i)[0]));
                String key = index.get(i)[1];
                String[] f = facts.get(i);
                if (f[0].equals("claim")) {
                    assertThat(key).isEqualTo(KafkaLedger.claimKey(f[1]));
                    assertThat(KafkaLedger.claimOf(f[1], value)).as("%s %s", r.generator(), key)
                            .isEqualTo(new NoticeLedger.Claim(f[1], f[2], f[3],
                                    Instant.ofEpochMilli(Long.parseLong(f[4]))));
                } else {
                    assertThat(key).isEqualTo(KafkaLedger.resultKey(f[1]));
                    assertThat(KafkaLedger.resultOf(f[1], value)).as("%s %s", r.generator(), key)
                            .isEqualTo(new NoticeLedger.Result(f[1], f[2], Instant.ofEpochMilli(Long.parseLong(f[3])),
                                    Integer.parseInt(f[4]), Integer.parseInt(f[5])));
                }
            }
        }
    }
}
