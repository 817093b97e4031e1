package io.actiongate.cli.commands;

import java.util.ArrayList;
import java.util.List;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import io.actiongate.avro.PolicyRecord;
import io.actiongate.policy.PolicyKey;
import io.actiongate.topics.Topics;

/** {@code actiongate policy delete KEY...}: a tombstone per key (absent policy then counts as failed evidence). */
@Command(name = "delete", description = "Delete policy records (publishes tombstones).")
public final class PolicyDeleteCommand extends OperatorCommand {

    @Parameters(arity = "1..*", paramLabel = "KEY", description = "Policy key, e.g. tool:webhook:send_email.")
    List<String> keys;

    @Mixin
    KafkaOptions kafka = new KafkaOptions();

    @Override
    int execute() throws Exception {
        List<TopicWriter.Entry<PolicyRecord>> tombstones = new ArrayList<>();
        for (String key : keys) {
            tombstones.add(new TopicWriter.Entry<>(PolicyKey.parse(key).toString(), null));
        }
        TopicWriter.write(kafka, Topics.POLICY, tombstones);
        tombstones.forEach(t -> out().println("deleted " + t.key()));
        out().flush();
        return 0;
    }
}
