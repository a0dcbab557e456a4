import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.LockSupport;

/** What the Selector loop does with a message: the first byte says which handler runs. */
final class Handler {
    static final Object MONITOR = new Object();
    static volatile long sink;

    /** Handles what `channel` sent; false when the client said it is done. */
    static boolean handle(SocketChannel channel, ByteBuffer buffer, SelectionKey key) throws Exception {
        buffer.clear();
        int count = channel.read(buffer);
        if (count < 0) {
            key.cancel();
            channel.close();
            return true;
        }
        for (int i = 0; i < count; i++) {
            switch (buffer.get(i)) {
                case 'w': spinFor(1_000_000L); break;
                case 's': spinFor(300_000_000L); break;
                case 'z': sleepFor(300); break;
                case 'o': waitFor(300); break;
                case 'p': parkFor(300_000_000L); break;
                case 'l': lockFor(); break;
                case 'q': return false;
                default: break;
            }
        }
        channel.write(ByteBuffer.wrap(new byte[] {'k'}));
        return true;
    }

    /** Burns the CPU for `nanos`: the stall lagmon should blame on this method. */
    static void spinFor(long nanos) {
        long end = System.nanoTime() + nanos;
        long x = sink;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 1000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        }
        sink = x;
    }

    static void sleepFor(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    static void waitFor(long millis) throws InterruptedException {
        synchronized (MONITOR) {
            MONITOR.wait(millis);
        }
    }

    static void parkFor(long nanos) {
        LockSupport.parkNanos(nanos);
    }

    /** Enters MONITOR, which the client thread holds for 300 ms. */
    static void lockFor() {
        synchronized (MONITOR) {
            sink++;
        }
    }
}
