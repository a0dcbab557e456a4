import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/** Drives the Selector loop from another thread over a real socket. */
final class Client {
    static void drive(int port, String mode) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            // Warm-up: enough short spins that the JIT compiles Handler.spinFor.
            for (int i = 0; i < 2000; i++) roundTrip(out, in, 'w');
            System.out.println("ready");
            System.out.flush();
            switch (mode) {
                case "spin": roundTrip(out, in, 's'); break;
                case "sleep": roundTrip(out, in, 'z'); break;
                case "wait": roundTrip(out, in, 'o'); break;
                case "park": roundTrip(out, in, 'p'); break;
                case "lock": lockedRoundTrip(out, in); break;
                case "attach":
                    // Waits for lagmon to attach (a line on stdin), then stalls the loop twice.
                    // The loop idles 100 ms between them, so lagmon's /proc readings see it wait.
                    System.in.read();
                    roundTrip(out, in, 's');
                    Thread.sleep(100);
                    roundTrip(out, in, 's');
                    break;
                default: break;
            }
            out.write('q');
            out.flush();
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(2);
        }
    }

    static void roundTrip(OutputStream out, InputStream in, char what) throws Exception {
        out.write(what);
        out.flush();
        if (in.read() < 0) throw new IllegalStateException("loop closed");
    }

    /**
     * Holds the monitor 300 ms while the loop tries to enter it, and prints `heldms=N`: how long
     * it held it from the message on, release included (a loaded machine can take this thread off
     * its CPU past its deadline, and the loop waits that long too).
     */
    static void lockedRoundTrip(OutputStream out, InputStream in) throws Exception {
        long start;
        synchronized (Handler.MONITOR) {
            out.write('l');
            out.flush();
            start = System.nanoTime();
            Holder.holdFor(300_000_000L);
        }
        System.out.println("heldms=" + (System.nanoTime() - start) / 1_000_000);
        if (in.read() < 0) throw new IllegalStateException("loop closed");
    }
}
