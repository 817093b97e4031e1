package io.actiongate.chaos;

/** Test child: prints its wall clock, for {@link ClockSkewIT}. */
public final class PrintClock {

    private PrintClock() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println("CLOCK " + System.currentTimeMillis());
        System.out.flush();
        Thread.sleep(60_000);
    }
}
