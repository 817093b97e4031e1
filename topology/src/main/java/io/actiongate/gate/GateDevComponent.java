package io.actiongate.gate;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.streams.KafkaStreams;

import io.actiongate.cli.DevComponent;
import io.actiongate.cli.DevContext;

/**
 * The gate as an {@code actiongate dev} component: builds {@link GateConfig} from dev's flat configuration, starts
 * {@link GateStreams} and waits until it runs. Register it in {@code DevComponents.defaults()}.
 */
public final class GateDevComponent implements DevComponent {

    static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    @Override
    public String name() {
        return "gate";
    }

    @Override
    public AutoCloseable start(DevContext context) throws Exception {
        GateConfig config = GateConfig.fromStrings(context.config());
        GateStreams gate = GateStreams.create(config);
        CountDownLatch running = new CountDownLatch(1);
        gate.streams().setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                running.countDown();
            }
        });
        gate.start();
        if (!running.await(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            gate.close();
            throw new IllegalStateException("the gate did not reach RUNNING within " + START_TIMEOUT
                    + " (state " + gate.streams().state() + ")");
        }
        context.hint("gate: application id " + config.applicationId() + ", " + config.trustedKeys().size()
                + " trusted decision key(s), state in " + config.stateDir());
        return gate;
    }
}
