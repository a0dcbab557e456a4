import java.nio.file.Files;
import java.nio.file.Path;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Iterator;

/**
 * A NIO Selector loop (lagmon's Java fixture): its main thread waits in epoll through libnio and
 * handles one message per connection. A client thread sends warm-up messages (the handler spins
 * briefly, until the JIT compiles it), prints "ready", then one message whose handling stalls the
 * loop the way the mode says:
 *   spin  - Handler.spinFor burns the CPU for 300 ms (a JIT-compiled method)
 *   sleep - Handler.sleepFor calls Thread.sleep(300)
 *   wait  - Handler.waitFor calls Object.wait(300)
 *   park  - Handler.parkFor calls LockSupport.parkNanos (300 ms)
 *   lock  - Handler.lockFor enters a monitor another thread holds for 300 ms
 *   attach - like spin, twice, once a line arrives on stdin (lagmon attach watches thread tid=)
 * Then it prints "done" and exits.
 */
public final class SelectorLoop {
    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "spin";
        Selector selector = Selector.open();
        ServerSocketChannel server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
        int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
        Thread client = new Thread(() -> Client.drive(port, mode), "client");
        client.setDaemon(true);
        client.start();
        System.out.println("pid=" + ProcessHandle.current().pid());
        // The loop's thread id (not the process's: the java launcher runs main on a thread of its own).
        System.out.println("tid=" + Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName());
        System.out.flush();
        ByteBuffer buffer = ByteBuffer.allocate(64);
        boolean running = true;
        while (running) {
            selector.select();
            Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
            while (keys.hasNext()) {
                SelectionKey key = keys.next();
                keys.remove();
                if (key.isAcceptable()) {
                    SocketChannel channel = server.accept();
                    channel.configureBlocking(false);
                    channel.register(selector, SelectionKey.OP_READ);
                } else if (key.isReadable()) {
                    running = Handler.handle((SocketChannel) key.channel(), buffer, key);
                }
            }
        }
        System.out.println("done");
        System.out.flush();
    }
}
