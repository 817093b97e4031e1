package io.actiongate.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;

import org.junit.jupiter.api.Test;

class JvmDefaultsTest {

    @Test
    void shouldGiveTheCommonPoolTwoWorkersOnMachinesWithFewerThanThreeCores() {
        assertThat(JvmDefaults.missing(1, new Properties()))
                .containsExactly(java.util.Map.entry(JvmDefaults.COMMON_POOL_PARALLELISM, "2"));
        assertThat(JvmDefaults.missing(2, new Properties()))
                .containsExactly(java.util.Map.entry(JvmDefaults.COMMON_POOL_PARALLELISM, "2"));
    }

    @Test
    void shouldLeaveTheJdkDefaultOnLargerMachinesAndTheOperatorsValueAlways() {
        assertThat(JvmDefaults.missing(3, new Properties())).isEmpty();
        assertThat(JvmDefaults.missing(16, new Properties())).isEmpty();
        Properties operator = new Properties();
        operator.setProperty(JvmDefaults.COMMON_POOL_PARALLELISM, "1");
        assertThat(JvmDefaults.missing(2, operator)).isEmpty();
    }
}
