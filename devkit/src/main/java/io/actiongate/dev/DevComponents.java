package io.actiongate.dev;

import java.util.ArrayList;
import java.util.List;

/** The components {@code actiongate dev} starts after the broker and topics, in order: add yours with one line. */
final class DevComponents {

    private DevComponents() {
    }

    static List<DevComponent> defaults() {
        List<DevComponent> components = new ArrayList<>();
        components.add(new io.actiongate.dev.DevStack(java.util.Map.of(), true));
        components.add(new DevMcpGateway());
        return components;
    }
}
