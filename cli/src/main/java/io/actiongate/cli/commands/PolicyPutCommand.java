package io.actiongate.cli.commands;

import java.nio.file.Path;
import java.util.List;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.actiongate.avro.PolicyRecord;
import io.actiongate.topics.Topics;

/** {@code actiongate policy put --file policy.json}: every record is validated before any is written. */
@Command(name = "put", description = {
        "Publish policy records from JSON: one object or a list, each with 'key', 'kind' and the body fields.",
        "Kinds: tool, integration, grant, epoch, task, origin, notify (key shapes as in docs/contract.md)."})
public final class PolicyPutCommand extends OperatorCommand {

    @Option(names = "--file", required = true, paramLabel = "FILE", description = "Policy JSON ('-' for stdin).")
    Path file;

    @Mixin
    KafkaOptions kafka = new KafkaOptions();

    @Override
    int execute() throws Exception {
        List<PolicyJson.Entry> entries = PolicyJson.fromJson(JsonInput.read(file));
        List<TopicWriter.Entry<PolicyRecord>> records = entries.stream()
                .map(e -> new TopicWriter.Entry<>(e.key().toString(), e.record())).toList();
        TopicWriter.write(kafka, Topics.POLICY, records);
        for (PolicyJson.Entry entry : entries) {
            out().println("put " + entry.key());
        }
        out().flush();
        return 0;
    }
}
