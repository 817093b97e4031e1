package io.actiongate.cli.commands;

import java.time.Duration;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import io.actiongate.config.DurationParser;

/**
 * A duration option in the syntax every configuration key uses ({@link DurationParser}): {@code 90s}, {@code 15m},
 * {@code 2h}, {@code 1d}, ISO-8601 ({@code PT15M}) or plain milliseconds.
 */
public final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    public static Duration parse(String value) {
        try {
            return DurationParser.parse(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException("'" + value + "' is not a duration like 90s, 15m, 2h, 1d or PT15M");
        }
    }
}
