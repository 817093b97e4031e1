package io.actiongate.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class Crc32PartitionerTest {

    @Test
    void shouldPickTheCrc32PartitionWhichOftenDiffersFromMurmur2() {
        // CRC32("123456789") is the standard check value 0xCBF43926
        assertThat(Crc32Partitioner.partition("123456789", 1_000_000)).isEqualTo((int) (0xCBF43926L % 1_000_000));
        int differ = 0;
        for (int i = 0; i < 200; i++) {
            String key = "chaos-task-1/c" + i;
            int murmur2 = Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % 4;
            if (murmur2 != Crc32Partitioner.partition(key, 4)) {
                differ++;
            }
        }
        assertThat(differ).isGreaterThan(100); // most keys land on another partition: the gate must route them
    }
}
