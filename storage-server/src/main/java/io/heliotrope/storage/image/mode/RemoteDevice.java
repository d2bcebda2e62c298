package io.heliotrope.storage.image.mode;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDescriptor;
import io.heliotrope.nbd.Extent;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.image.BlockRanges;
import io.heliotrope.storage.image.BlockRanges.Run;
import io.heliotrope.storage.view.IoGate.Kind;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.image.AbstractImageDevice;
import io.heliotrope.storage.image.Locality;
import io.heliotrope.storage.image.OpenImage;
import io.heliotrope.storage.peer.Peers;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.peer.Peers.Wanted;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.storage.view.RemoteWrites;
import io.heliotrope.storage.view.ViewCache;
import io.heliotrope.storage.view.WanWaits;
import io.heliotrope.storage.view.WanWaits.Cause;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.image.BlockRanges.blocksCovering;
import static io.heliotrope.storage.image.BlockRanges.firstWholeBlock;
import static java.util.Objects.requireNonNull;

/**
 * One connection to an image in the {@code remote} mode at a site other than its home
 * (DESIGN.md section 6, the paper's NFS baseline): nothing of the image is stored here.
 *
 * <ul>
 *   <li>A write takes its version from the open image, under this site's lease, and is
 *       pushed to the home; it is acknowledged once the home holds every block of it (and
 *       the lease records the home as holding this session's writes), else it fails (EIO).
 *       TRIM and WRITE_ZEROES push zero markers, {@value #ZEROS_PER_PUSH} to a push. A write
 *       of part of a block reads the block, merges and writes it back, in turn with the
 *       session's other such writes of the block.</li>
 *   <li>A read wants, per block, the session's latest acknowledged write, else the committed
 *       version; a zero marker or a block never written reads as zeros without asking anyone.
 *       The rest is fetched into memory, one call per holder. A block that its holder no
 *       longer has at that version was replaced by a write of this session meanwhile: the
 *       read asks again for the newest version, up to {@value #READ_ATTEMPTS} times.</li>
 *   <li>FLUSH, FUA and CACHE have nothing to do: an acknowledged write is durable at the
 *       home, and there are no local copies to fill. Every data block is {@link Locality#ELSEWHERE}.</li>
 * </ul>
 */
public final class RemoteDevice extends AbstractImageDevice {
    /** Zero markers per push (a block number and a version each, no data): a TRIM of a whole image goes in pushes this large, one after another. */
    static final int ZEROS_PER_PUSH = 65536;
    /** How many times a read asks for a block that a newer write replaced at its holder meanwhile. */
    static final int READ_ATTEMPTS = 3;

    private final ImageSession session;
    private final RemoteWrites writes;
    private final Peers peers;
    private final ViewCache view;
    private final ReadCounter reads;
    private final WanWaits waits;
    private final ImageRef ref;
    private final long imageId;
    private final ByteBufAllocator allocator;

    /**
     * @param writes the session's writes, which every connection to the image shares
     * @param view the cached view, for the committed version of each block
     * @param reads counts where read blocks came from
     * @param waits counts how long requests waited for the home
     * @param lookups where calls that look into the view run
     */
    RemoteDevice(OpenImage image, RemoteWrites writes, Peers peers, ViewCache view, ReadCounter reads, WanWaits waits, Executor lookups,
            ByteBufAllocator allocator, Runnable onClose) {
        super(image, lookups, onClose);
        this.session = image.session();
        this.writes = requireNonNull(writes, "writes is null");
        this.peers = requireNonNull(peers, "peers is null");
        this.view = requireNonNull(view, "view is null");
        this.reads = requireNonNull(reads, "reads is null");
        this.waits = requireNonNull(waits, "waits is null");
        this.ref = ImageRef.of(image.info());
        this.imageId = image.info().id();
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    /** Nothing to prefetch: this site keeps no copies. */
    @Override
    public CompletableFuture<Void> cache(long offset, long length) {
        return CompletableFuture.completedFuture(null);
    }

    /** Acknowledged writes are held durably at the home already. */
    @Override
    public CompletableFuture<Void> flush() {
        return image.session().gate().run(Kind.FLUSH, () -> CompletableFuture.completedFuture(null));
    }

    @Override
    public CompletableFuture<ByteBuf> read(long offset, int length) {
        return compose(Kind.READ, () -> readInto(allocator, offset, length, buffer -> read(offset / BLOCK_SIZE, blocksCovering(offset, length), buffer)));
    }

    @Override
    public CompletableFuture<Void> write(long offset, ByteBuf data, boolean fua) {
        int length = data.readableBytes();
        // Our own copy: the payload goes back to its pool once the request is answered, and a push that timed out may still be sending it.
        ByteBuffer copy = ByteBuffer.allocate(length).put(data.nioBuffer()).flip();
        if (offset % BLOCK_SIZE == 0 && length % BLOCK_SIZE == 0) {
            return compose(Kind.WRITE, () -> write(offset / BLOCK_SIZE, length / BLOCK_SIZE, copy));
        }
        return compose(Kind.WRITE, () -> readModifyWrite(offset, length, merged -> merged.setBytes((int) (offset % BLOCK_SIZE), copy)));
    }

    /** Zero markers over the whole blocks of the range; the partial ones are left as they are (TRIM is advisory). */
    @Override
    public CompletableFuture<Void> trim(long offset, long length, boolean fua) {
        long first = firstWholeBlock(offset);
        long end = (offset + length) / BLOCK_SIZE;
        return end > first ? compose(Kind.WRITE, () -> write(first, end - first, null)) : CompletableFuture.completedFuture(null);
    }

    /** Zero markers over the whole blocks of the range, and zeros written into the partial ones at its edges. */
    @Override
    public CompletableFuture<Void> writeZeroes(long offset, long length, boolean fua, boolean mayTrim) {
        long first = firstWholeBlock(offset);
        long end = (offset + length) / BLOCK_SIZE;
        if (end <= first) {
            return compose(Kind.WRITE, () -> zeroPartial(offset, length));
        }
        long headBytes = first * BLOCK_SIZE - offset;
        long tailBytes = offset + length - end * BLOCK_SIZE;
        return compose(Kind.WRITE, () -> CompletableFuture.allOf(
                headBytes > 0 ? zeroPartial(offset, headBytes) : CompletableFuture.completedFuture(null),
                tailBytes > 0 ? zeroPartial(end * BLOCK_SIZE, tailBytes) : CompletableFuture.completedFuture(null),
                write(first, end - first, null)));
    }

    @Override
    public CompletableFuture<List<Extent>> blockStatus(long offset, long length) {
        return compose(Kind.READ, () -> CompletableFuture.completedFuture(BlockRanges.allocation(BlockRanges.descriptors(offset, length, runs(offset, length, 0, 1)))));
    }

    @Override
    public CompletableFuture<List<BlockDescriptor>> locality(long offset, long length) {
        return compose(Kind.READ, () -> CompletableFuture.completedFuture(BlockRanges.descriptors(offset, length, runs(offset, length, Locality.ELSEWHERE, Locality.ZERO))));
    }

    /** One run per block of the range, with {@code dataFlags} for a block with data and {@code zeroFlags} for one that reads as zeros. */
    private List<Run> runs(long offset, long length, int dataFlags, int zeroFlags) {
        session.checkCurrent();
        long first = offset / BLOCK_SIZE;
        int count = blocksCovering(offset, length);
        List<Run> runs = new ArrayList<>(count);
        for (long block = first; block < first + count; block++) {
            runs.add(new Run(block, 1, wanted(block).zero() ? zeroFlags : dataFlags));
        }
        return runs;
    }

    /**
     * The version a read of {@code block} wants, with the site that holds it: this session's
     * latest acknowledged write, at the home, else the committed version (version 0 and no
     * holder for a block never written; no holder for a zero marker).
     */
    private GlobalBlock wanted(long block) {
        BlockVersion own = writes.latest(block);
        if (own != null) {
            return new GlobalBlock(block, own.version(), own.state() == BlockState.ZERO ? null : writes.home());
        }
        GlobalBlock committed = view.entry(imageId, block);
        return committed != null ? committed : new GlobalBlock(block, 0, null);
    }

    /** Reads blocks [first, first + count) into {@code into}, each at the version the session wants. */
    private CompletableFuture<Void> read(long first, int count, ByteBuf into) {
        session.checkCurrent();
        List<GlobalBlock> wanted = new ArrayList<>(count);
        int zeros = 0;
        for (long block = first; block < first + count; block++) {
            GlobalBlock one = wanted(block);
            wanted.add(one);
            zeros += one.zero() ? 1 : 0;
        }
        reads.read(zeros, count - zeros);
        return waits.time(Cause.REMOTE, fetch(first, wanted, into, 1));
    }

    /**
     * Puts zeros in place of the blocks that read as zeros, fetches the others from their
     * holders, one call per holder, and asks again for those a holder no longer had.
     */
    private CompletableFuture<Void> fetch(long first, List<GlobalBlock> wanted, ByteBuf into, int attempt) {
        Map<String, List<GlobalBlock>> byHolder = new TreeMap<>();
        for (GlobalBlock block : wanted) {
            if (block.zero()) {
                into.setZero(offsetIn(first, block.block()), BLOCK_SIZE);
            } else {
                byHolder.computeIfAbsent(block.holder(), holder -> new ArrayList<>()).add(block);
            }
        }
        if (byHolder.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<List<GlobalBlock>>> calls = new ArrayList<>();
        byHolder.forEach((holder, blocks) -> calls.add(peers.fetch(holder, ref, blocks.stream().map(block -> new Wanted(block.block(), block.version())).toList())
                .thenApply(copies -> place(first, blocks, copies, into))));
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).thenCompose(ignored -> {
            List<GlobalBlock> missing = calls.stream().flatMap(call -> call.join().stream()).toList();
            if (missing.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            if (attempt == READ_ATTEMPTS) {
                GlobalBlock block = missing.get(0);
                throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "image '" + ref.name() + "': block " + block.block() + " at version "
                        + block.version() + " is not at site '" + block.holder() + "' (" + missing.size() + " blocks missing after " + attempt + " attempts)");
            }
            return onCalls(() -> missing.stream().map(this::again).toList())
                    .thenCompose(next -> fetch(first, next, into, attempt + 1));
        });
    }

    /** Puts the copies that arrived in their places; returns the blocks asked for that did not arrive. */
    private List<GlobalBlock> place(long first, List<GlobalBlock> asked, List<Copy> copies, ByteBuf into) {
        Set<Long> arrived = new HashSet<>();
        for (Copy copy : copies) {
            if (copy.zero()) {
                into.setZero(offsetIn(first, copy.block()), BLOCK_SIZE);
            } else {
                into.setBytes(offsetIn(first, copy.block()), copy.data().duplicate());
            }
            arrived.add(copy.block());
        }
        return asked.stream().filter(block -> !arrived.contains(block.block())).toList();
    }

    /**
     * What to ask for once {@code tried} was not at its holder: a newer write of this session
     * replaced it at the home (the newest version pushed, acknowledged or not: a read racing a
     * write may see either), else the version the session wants now.
     */
    private GlobalBlock again(GlobalBlock tried) {
        long pushed = writes.newestPushed(tried.block());
        return pushed > tried.version() ? new GlobalBlock(tried.block(), pushed, writes.home()) : wanted(tried.block());
    }

    private static int offsetIn(long first, long block) {
        return (int) (block - first) * BLOCK_SIZE;
    }

    /**
     * Writes blocks [first, first + count) with a new version, their data or, when
     * {@code data} is null, zero markers; completes once the home holds every one of them and
     * the lease records the home as holding this session's writes.
     */
    private CompletableFuture<Void> write(long first, long count, ByteBuffer data) {
        session.checkCurrent();
        long version = image.nextVersion();
        writes.pushing(first, count, version);
        CompletableFuture<Void> pushed;
        if (data != null) {
            List<Copy> copies = new ArrayList<>((int) count);
            for (int i = 0; i < count; i++) {
                copies.add(new Copy(first + i, version, data.slice(i * BLOCK_SIZE, BLOCK_SIZE)));
            }
            pushed = push(copies);
        } else {
            pushed = CompletableFuture.completedFuture(null);
            for (long batch = first; batch < first + count; batch += ZEROS_PER_PUSH) {
                long from = batch;
                int size = (int) Math.min(ZEROS_PER_PUSH, first + count - batch);
                pushed = pushed.thenCompose(ignored -> push(zeroMarkers(from, size, version)));
            }
        }
        return waits.time(Cause.REMOTE, CompletableFuture.allOf(writes.homeRecorded(session), pushed)).thenRun(() -> {
            writes.acknowledged(first, count, version, data == null);
            session.wrote(first, count);
        });
    }

    private static List<Copy> zeroMarkers(long first, int count, long version) {
        List<Copy> markers = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            markers.add(new Copy(first + i, version, null));
        }
        return markers;
    }

    /** Pushes copies to the home; fails unless it holds every one of them afterwards. */
    private CompletableFuture<Void> push(List<Copy> copies) {
        String home = writes.home();
        return peers.push(home, ref, copies).handle((held, failure) -> {
            if (failure != null) {
                throw notHeld(copies.get(0), "it did not answer: " + HeliotropeException.rootMessage(failure));
            }
            for (int i = 0; i < held.length; i++) {
                if (!held[i]) {
                    throw notHeld(copies.get(i), "it refused the copy (the image open for write there, or its epoch fenced)");
                }
            }
            return null;
        });
    }

    private HeliotropeException notHeld(Copy copy, String why) {
        return new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "image '" + ref.name() + "': the write of block " + copy.block()
                + " is not acknowledged: its home, site '" + writes.home() + "', does not hold it; " + why);
    }

    private CompletableFuture<Void> zeroPartial(long offset, long length) {
        return readModifyWrite(offset, (int) length, merged -> merged.setZero((int) (offset % BLOCK_SIZE), (int) length));
    }

    /** Reads the blocks that [offset, offset + length) touches, merges, and writes them back, in turn with the session's other such writes of them. */
    private CompletableFuture<Void> readModifyWrite(long offset, int length, Consumer<ByteBuf> merge) {
        long first = offset / BLOCK_SIZE;
        int count = blocksCovering(offset, length);
        return writes.inTurn(first, count, () -> {
            ByteBuf merged = Unpooled.wrappedBuffer(new byte[count * BLOCK_SIZE]);
            return onCalls(() -> read(first, count, merged)).thenCompose(Function.identity()).thenCompose(ignored -> {
                merge.accept(merged);
                return write(first, count, merged.nioBuffer());
            });
        });
    }
}
