package io.actiongate.http;

import java.io.IOException;

/** Answers one {@link HttpCall} now, or hands it on to be answered later (then it must not close it). */
@FunctionalInterface
interface CallHandler {
    void handle(HttpCall call) throws IOException;
}
