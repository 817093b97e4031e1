package io.actiongate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.TaskState;

class PolicyLookupTest {

    private final CountingStore store = new CountingStore();
    private final PolicyChanges changes = PolicyChanges.snapshot();
    private final PolicyLookup lookup = new PolicyLookup(store, null, changes);

    /** What the gate's global processor does for one policy record. */
    private void update(String key, byte[] value) {
        if (value == null) {
            store.data.remove(key);
        } else {
            store.data.put(key, value);
        }
        changes.changed(key);
    }

    private PolicySnapshot check() {
        return lookup.snapshot("webhook", "send", "acme", "agent", "t-1", "c-1");
    }

    @Test
    void shouldReadNoStoreOnARepeatedCheckWhileNothingChanged() {
        update(PolicyKey.toolKey("webhook", "send"), PolicyRecords.tool(PolicyRecords.toolBuilder("webhook", "send")
                .build()));
        update(PolicyKey.taskKey("t-1"), PolicyRecords.task("t-1", "acme", 1, LifecycleStatus.ACTIVE));

        PolicySnapshot first = check();
        int readsForOneCheck = store.reads.get();
        PolicySnapshot second = check();

        assertThat(readsForOneCheck).isEqualTo(6);
        assertThat(store.reads.get()).isEqualTo(readsForOneCheck);
        assertThat(second.tool()).isEqualTo(first.tool());
        // absent records are remembered as absent, too
        assertThat(second.grant()).isEmpty();
    }

    @Test
    void shouldSeeAPolicyChangeAtTheNextCheck() {
        update(PolicyKey.taskKey("t-1"), PolicyRecords.task("t-1", "acme", 1, LifecycleStatus.ACTIVE));
        assertThat(check().task()).map(TaskState::getVersion).contains(1L);

        update(PolicyKey.taskKey("t-1"), PolicyRecords.task("t-1", "acme", 2, LifecycleStatus.CANCELLED));
        assertThat(check().task()).map(TaskState::getStatus).contains(LifecycleStatus.CANCELLED);

        update(PolicyKey.taskKey("t-1"), null);
        assertThat(check().task()).isEmpty();

        update(PolicyKey.grantKey("acme", "agent"), PolicyRecords.grant("acme", "agent", java.util.List.of("send")));
        assertThat(check().grant()).isPresent();
    }

    @Test
    void shouldNotCacheARecordThatChangedWhileItWasBeingRead() {
        String key = PolicyKey.taskKey("t-1");
        update(key, PolicyRecords.task("t-1", "acme", 1, LifecycleStatus.ACTIVE));
        // the update lands between the reader's store read and its insert into the snapshot
        store.afterRead = () -> {
            store.afterRead = () -> { };
            update(key, PolicyRecords.task("t-1", "acme", 2, LifecycleStatus.ACTIVE));
        };

        assertThat(lookup.task("t-1")).map(TaskState::getVersion).contains(1L);
        assertThat(lookup.task("t-1")).map(TaskState::getVersion).contains(2L);
    }

    @Test
    void shouldStartAgainEmptyWhenTheStoreIsReinitialised() {
        String key = PolicyKey.taskKey("t-1");
        update(key, PolicyRecords.task("t-1", "acme", 1, LifecycleStatus.ACTIVE));
        assertThat(lookup.task("t-1")).isPresent();
        // a restore writes behind the processor's back; the processor's init resets the snapshot
        store.data.put(key, PolicyRecords.task("t-1", "acme", 5, LifecycleStatus.ACTIVE));
        changes.reset();

        assertThat(lookup.task("t-1")).map(TaskState::getVersion).contains(5L);
    }

    @Test
    void shouldReadTheStoreEveryTimeWithoutASnapshot() {
        PolicyLookup uncached = new PolicyLookup(store, null, PolicyChanges.uncached());
        store.data.put(PolicyKey.taskKey("t-1"), PolicyRecords.task("t-1", "acme", 1, LifecycleStatus.ACTIVE));
        uncached.task("t-1");
        store.data.put(PolicyKey.taskKey("t-1"), PolicyRecords.task("t-1", "acme", 2, LifecycleStatus.ACTIVE));

        assertThat(uncached.task("t-1")).map(TaskState::getVersion).contains(2L);
        assertThat(store.reads.get()).isEqualTo(2);
    }

    @Test
    void shouldTreatAnUndecodableOrOtherKindOfRecordAsAbsent() {
        update(PolicyKey.taskKey("t-1"), new byte[] {9, 9, 9});
        update(PolicyKey.epochKey("acme"), PolicyRecords.task("t-1", "acme", 1, LifecycleStatus.ACTIVE));

        assertThat(lookup.task("t-1")).isEmpty();
        assertThat(lookup.epochRecord("acme")).isEmpty();
    }

    @Test
    void shouldApplyTheDefaultOrgToTasksWrittenWithoutOne() {
        PolicyLookup single = new PolicyLookup(store, "acme", changes);
        update(PolicyKey.taskKey("t-1"), PolicyRecords.task("t-1", null, 1, LifecycleStatus.ACTIVE));

        assertThat(single.snapshot("webhook", "send", "acme", "agent", "t-1", null).ownership("acme")).isEmpty();
        assertThat(check().ownership("acme")).isPresent();
    }
}
