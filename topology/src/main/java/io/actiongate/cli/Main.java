package io.actiongate.cli;

/** Entry point of the actiongate fat jar. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.out.println("actiongate");
    }
}
