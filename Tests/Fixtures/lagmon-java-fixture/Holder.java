/** The client thread's side of the lock stall: spins while holding the monitor. */
final class Holder {
    static void holdFor(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) Handler.sink++;
    }
}
