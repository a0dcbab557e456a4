/**
 * Times its own iterations (lagmon's bench: the pause a perf-map request causes a running JVM).
 * Prints "pid=" and "ready" once its loop ran a while (compiled), then loops, each iteration a
 * little CPU work, keeping the longest gap between two iterations; each line on stdin prints
 * "maxGapNs=<longest since the previous line>" and starts over; end of stdin exits.
 */
public final class PauseProbe {
    static volatile long maxGapNs;
    static volatile boolean running = true;
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        Thread loop = new Thread(PauseProbe::loop, "pause-probe");
        loop.start();
        System.out.println("pid=" + ProcessHandle.current().pid());
        Thread.sleep(2000);
        maxGapNs = 0;
        System.out.println("ready");
        System.out.flush();
        int c;
        while ((c = System.in.read()) >= 0) {
            if (c != '\n') continue;
            System.out.println("maxGapNs=" + maxGapNs);
            System.out.flush();
            maxGapNs = 0;
        }
        running = false;
        loop.join();
    }

    static void loop() {
        long last = System.nanoTime();
        long x = 1;
        while (running) {
            for (int i = 0; i < 10_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
            sink = x;
            long now = System.nanoTime();
            if (now - last > maxGapNs) maxGapNs = now - last;
            last = now;
        }
    }
}
