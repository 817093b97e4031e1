package io.actiongate.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import io.actiongate.broker.EmbeddedKafkaBroker;

/**
 * The chaos run's broker JVM: the embedded KRaft broker on a fixed client port and a data directory that survive a
 * {@code kill -9}, so a restart comes back with the same logs, offsets and transaction state. Prints
 * {@value #READY} once it answers.
 */
public final class BrokerMain {

    static final String READY = "CHAOS-BROKER-READY";

    private BrokerMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: BrokerMain PORT DATA_DIR");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder()
                .port(port)
                .dataDir(Path.of(args[1]))
                .startTimeout(Duration.ofSeconds(120))
                // a transaction left open by a killed gate is aborted by the coordinator soon after its timeout
                .brokerProperty("transaction.abort.timed.out.transaction.cleanup.interval.ms", "5000")
                .brokerProperty("group.min.session.timeout.ms", "1000")
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "chaos-broker-shutdown"));
        System.out.println(READY + " " + broker.bootstrapServers());
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
