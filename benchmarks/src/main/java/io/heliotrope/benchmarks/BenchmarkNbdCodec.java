package io.heliotrope.benchmarks;

import io.heliotrope.nbd.codec.NbdReplyEncoder;
import io.heliotrope.nbd.codec.NbdRequestDecoder;
import io.heliotrope.nbd.protocol.NbdCommand;
import io.heliotrope.nbd.protocol.NbdReply;
import io.heliotrope.nbd.protocol.NbdRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

import static io.heliotrope.nbd.protocol.NbdConstants.REQUEST_MAGIC;

/**
 * The NBD codec alone: decoding a burst of 32 requests as one socket read would bring
 * them, and encoding read replies. Numbers are per request or reply.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class BenchmarkNbdCodec {
    private static final int BURST = 32;

    @Param({"0", "4096"})
    public int writePayload;

    private EmbeddedChannel decoder;
    private EmbeddedChannel encoder;
    private ByteBuf burst;
    private ByteBuf readData;

    @Setup(Level.Trial)
    public void setUp() {
        decoder = new EmbeddedChannel(new NbdRequestDecoder());
        encoder = new EmbeddedChannel(NbdReplyEncoder.INSTANCE);
        burst = PooledByteBufAllocator.DEFAULT.directBuffer();
        NbdCommand command = writePayload == 0 ? NbdCommand.READ : NbdCommand.WRITE;
        for (int i = 0; i < BURST; i++) {
            burst.writeInt(REQUEST_MAGIC).writeShort(0).writeShort(command.wireValue())
                    .writeLong(i).writeLong(i * 4096L).writeInt(4096).writeZero(writePayload);
        }
        readData = PooledByteBufAllocator.DEFAULT.directBuffer(4096).writeZero(4096);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        burst.release();
        readData.release();
        decoder.finishAndReleaseAll();
        encoder.finishAndReleaseAll();
    }

    @Benchmark
    @org.openjdk.jmh.annotations.OperationsPerInvocation(BURST)
    public long decodeBurst() {
        decoder.writeInbound(burst.retainedDuplicate());
        long handles = 0;
        for (NbdRequest request; (request = decoder.readInbound()) != null; ) {
            handles += request.handle();
            request.release();
        }
        return handles;
    }

    @Benchmark
    public int encodeStructuredRead() {
        encoder.writeOutbound(new NbdReply.Read(7, 4096, readData.retainedDuplicate(), true));
        int bytes = 0;
        for (ByteBuf out; (out = encoder.readOutbound()) != null; ) {
            bytes += out.readableBytes();
            out.release();
        }
        return bytes;
    }
}
