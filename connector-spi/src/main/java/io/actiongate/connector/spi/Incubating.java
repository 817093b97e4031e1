package io.actiongate.connector.spi;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a type of the connector SPI as incubating, as Debezium marks its {@code debezium-api}: it works and is
 * tested, but its shape may still change in a minor release, with a CHANGELOG entry that says how to move. A
 * connector author compiles against it knowing that; a type without the mark is stable and changes only in a major
 * release. Today the whole SPI incubates: it has not yet served a connector written outside this repository.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.PACKAGE})
public @interface Incubating {
}
