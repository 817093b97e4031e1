package io.actiongate.cli.commands;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.acl.AclBinding;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.actiongate.acls.RoleAcls;
import io.actiongate.kafka.KafkaFailures;

/**
 * {@code actiongate acls --role ROLE --principal User:NAME [--apply]}: the least-privilege ACLs of one role, from
 * {@link RoleAcls}, printed in the Admin API's terms (or as {@code kafka-acls.sh} commands), and created with
 * {@code --apply} by a principal allowed to (an admin's {@code --kafka-config}).
 */
@Command(name = "acls", description = {
        "Print (or --apply) the Kafka ACLs one role needs, and no more, for one principal.",
        "Names follow the configuration the role runs with: topic.prefix, application.id, executor.group.id,",
        "reconciler.group.id, storage.enabled (give it with --config). Roles: gate, executor, reconciler, approver,",
        "mcp-gateway, tool-host, operator."})
public final class AclsCommand extends OperatorCommand {

    @Option(names = "--role", required = true, paramLabel = "ROLE",
            description = "gate, executor, reconciler, approver, notifier, mcp-gateway, tool-host or operator.")
    String role;

    @Option(names = "--principal", required = true, paramLabel = "User:NAME",
            description = "The role's Kafka principal: User:<SCRAM user> or User:<certificate CN> (mTLS).")
    String principal;

    @Option(names = "--kafka-acls", description = "Print kafka-acls.sh commands instead of the Admin API bindings.")
    boolean kafkaAcls;

    @Option(names = "--apply", description = "Create the ACLs on the cluster (needs the Alter permission on it).")
    boolean apply;

    @Mixin
    KafkaOptions kafka = new KafkaOptions();

    @Override
    int execute() throws Exception {
        RoleAcls.Role parsed = RoleAcls.Role.parse(role);
        List<AclBinding> bindings = RoleAcls.bindings(parsed, principal, kafka.flatConfig());
        if (kafkaAcls) {
            RoleAcls.kafkaAclsCommands(bindings, kafka.bootstrapServers()).forEach(out()::println);
        } else {
            out().println("# role " + parsed.id() + ", principal " + principal + ": " + bindings.size()
                    + " ALLOW bindings (Admin.createAcls; host *)");
            out().printf("%-8s %-17s %-9s %-16s %s%n", "PERM", "OPERATION", "PATTERN", "RESOURCE", "NAME");
            bindings.forEach(b -> out().println(RoleAcls.describe(b)));
        }
        out().flush();
        if (apply) {
            create(bindings);
            out().println("applied " + bindings.size() + " ACLs for " + principal + " at " + kafka.bootstrapServers());
            out().flush();
        }
        return 0;
    }

    private void create(List<AclBinding> bindings) throws InterruptedException {
        try (Admin admin = kafka.clients().admin("actiongate-cli-acls")
                .defaultTo(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000)
                .defaultTo(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000).create()) {
            admin.createAcls(bindings).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new CommandFailure("cannot create the ACLs at " + kafka.bootstrapServers() + ": "
                    + KafkaFailures.describe(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new CommandFailure("cannot create the ACLs at " + kafka.bootstrapServers() + ": timed out", e);
        }
    }
}
