package io.actiongate.gate.internal;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.Receipt;
import io.actiongate.gate.ReceiptObserver;

/** Passes every receipt on to the receipts sink, showing it to a {@link ReceiptObserver} on the way. */
public final class ReceiptObserverProcessor implements Processor<Object, Object, Object, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(ReceiptObserverProcessor.class);

    private final ReceiptObserver observer;
    private ProcessorContext<Object, Object> context;

    public ReceiptObserverProcessor(ReceiptObserver observer) {
        this.observer = observer;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
    }

    @Override
    public void process(Record<Object, Object> record) {
        if (record.value() instanceof Receipt receipt) {
            try {
                observer.published(receipt);
            } catch (RuntimeException e) {
                // an observer (metrics) never stops the gate or holds back a receipt
                LOG.warn("receipt observer failed ({}); receipt published anyway", e.getClass().getName());
            }
        }
        context.forward(record);
    }
}
