package io.actiongate.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

import io.actiongate.chaos.check.ProbeLog;
import io.actiongate.kafka.KafkaClients;

/**
 * The run's transaction probe, in the manner of Jepsen's Kafka workloads: a transactional producer that writes
 * unique values to the probe topic through the whole storm, committing most transactions and aborting a seeded
 * third, and notes how each ended as the producer saw it. The checker then reads the topic {@code read_committed}:
 * an aborted value there is an aborted read, a committed one missing is a lost write (check (j)). A commit or
 * abort that throws is {@code UNCERTAIN}; the producer is then closed and a new one fences the old epoch.
 */
final class TxnProbe implements AutoCloseable {

    static final String TOPIC_SUFFIX = "chaos-probe";
    private static final int RECORDS_PER_TXN = 3;

    private final String bootstrap;
    private final String topic;
    private final String transactionalId;
    private final Random random;
    private final int partitions;
    private final Map<Long, ProbeLog.Txn> log = new ConcurrentHashMap<>();
    private volatile boolean running = true;
    private Thread thread;
    private KafkaProducer<String, String> producer;

    TxnProbe(String bootstrap, String prefix, long seed, int partitions) {
        this.bootstrap = bootstrap;
        this.topic = prefix + TOPIC_SUFFIX;
        this.transactionalId = "chaos-probe-" + seed;
        this.random = new Random(seed * 17 + 3);
        this.partitions = partitions;
    }

    /** Writes one transaction every {@code everyMs} until {@link #close()}. */
    void start(long everyMs) {
        thread = new Thread(() -> loop(everyMs), "chaos-txn-probe");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop(long everyMs) {
        long n = 0;
        while (running) {
            runOne(n++, random.nextInt(3) == 0);
            try {
                Thread.sleep(everyMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** One transaction {@code n}: sends its values, then commits or (when {@code abort}) aborts. */
    void runOne(long n, boolean abort) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < RECORDS_PER_TXN; i++) {
            values.add("probe-" + n + "-" + i);
        }
        ProbeLog.Outcome outcome;
        try {
            if (producer == null) {
                producer = newProducer();
                producer.initTransactions();
            }
            producer.beginTransaction();
            for (int i = 0; i < values.size(); i++) {
                producer.send(new ProducerRecord<>(topic, (int) ((n + i) % partitions), null, values.get(i)));
            }
            if (abort) {
                producer.abortTransaction();
                outcome = ProbeLog.Outcome.ABORTED;
            } else {
                producer.commitTransaction();
                outcome = ProbeLog.Outcome.COMMITTED;
            }
        } catch (RuntimeException e) {
            // a broker down, a timeout, a fenced epoch: the transaction may have ended either way
            outcome = ProbeLog.Outcome.UNCERTAIN;
            closeProducer();
        }
        log.put(n, new ProbeLog.Txn(outcome, values));
    }

    private KafkaProducer<String, String> newProducer() {
        return KafkaClients.of(bootstrap, Map.of()).producer(transactionalId).transactional(transactionalId)
                .defaultTo(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000)
                .defaultTo(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000)
                .defaultTo(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000)
                .defaultTo(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 20_000)
                .create(new StringSerializer(), new StringSerializer());
    }

    private void closeProducer() {
        if (producer != null) {
            try {
                producer.close(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                // closing after a failure: nothing more to learn
            }
            producer = null;
        }
    }

    ProbeLog log() {
        return new ProbeLog(TOPIC_SUFFIX, log);
    }

    @Override
    public void close() {
        running = false;
        if (thread != null) {
            try {
                thread.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closeProducer();
    }
}
