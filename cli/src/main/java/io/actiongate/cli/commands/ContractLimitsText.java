package io.actiongate.cli.commands;

import java.util.ListResourceBundle;

import io.actiongate.contract.ContractLimits;

/**
 * The contract's limits for picocli's option descriptions, as {@code ${bundle:contract.summary.max.chars}} and the
 * like: an annotation holds only compile-time constants, and {@link ContractLimits} has none on purpose, so the help
 * text reads them through the command's resource bundle instead of repeating the numbers.
 */
public final class ContractLimitsText extends ListResourceBundle {

    @Override
    protected Object[][] getContents() {
        return new Object[][] {
            {"contract.summary.max.chars", String.valueOf(ContractLimits.SUMMARY_MAX_CHARS)},
            {"contract.id.characters", ContractLimits.ID_CHARACTERS},
            {"contract.id.max.chars", String.valueOf(ContractLimits.ID_MAX_CHARS)},
        };
    }
}
