import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A Netty server on one NIO event loop (lagmon's Netty fixture) whose handler,
 * BlockingHandler.channelRead, answers each byte after computing for that many tens of
 * milliseconds in BlockingHandler.computeReply (a CPU-bound reply). A client in this process warms
 * the handler up over TCP with 0s until the JIT compiled it, prints "ready", sends one 30 (the
 * loop blocked 300 ms) and exits. Warm-up and stall take the same path through the handler: a
 * branch the warm-up never took would be compiled as a trap, and the stall would run in the
 * interpreter after deoptimizing.
 */
public final class NettyServer {
    public static void main(String[] args) throws Exception {
        EventLoopGroup group = new NioEventLoopGroup(1);
        try {
            Channel server = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline().addLast(new BlockingHandler());
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            System.out.println("pid=" + ProcessHandle.current().pid());
            try (Socket socket = new Socket("127.0.0.1", port)) {
                socket.setTcpNoDelay(true);
                OutputStream out = socket.getOutputStream();
                InputStream in = socket.getInputStream();
                for (int i = 0; i < 3000; i++) request(out, in, 0);
                System.out.println("ready");
                System.out.flush();
                request(out, in, 30);
            }
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
        System.out.println("done");
    }

    static void request(OutputStream out, InputStream in, int tens) throws Exception {
        out.write(tens);
        out.flush();
        if (in.read() < 0) throw new IllegalStateException("server closed");
    }
}

/** The application's handler: what lagmon should blame for the stall. */
final class BlockingHandler extends ChannelInboundHandlerAdapter {
    static volatile long sink;

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
        ByteBuf bytes = (ByteBuf) message;
        int reply = 0;
        while (bytes.isReadable()) reply = computeReply(bytes.readByte());
        bytes.release();
        context.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {(byte) reply}));
    }

    /** After `tens` × 10 ms of CPU. */
    static int computeReply(byte tens) {
        long end = System.nanoTime() + tens * 10_000_000L;
        long x = sink;
        do {
            for (int i = 0; i < 1000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        } while (System.nanoTime() < end);
        sink = x;
        return tens;
    }
}
