package io.heliotrope.storage.memory;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.ImageNames;
import io.heliotrope.storage.view.ViewCache;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;

import static io.heliotrope.image.ImageNames.check;
import static io.heliotrope.storage.ImageNames.checkSize;

/**
 * A {@link BlockStore} in the heap: nothing survives the process. For tests, demos and
 * for measuring the NBD path without storage costs. Blocks live in arrays indexed by
 * block number, so an access costs no lookup. It keeps the site's {@link #view() view
 * cache} too.
 */
public final class MemoryBlockStore implements BlockStore {
    private static final byte[] ZEROS = new byte[BLOCK_SIZE];

    private final Map<String, MemoryImage> byName = new TreeMap<>();
    private final Map<Long, MemoryImage> byId = new ConcurrentHashMap<>();
    private final MemoryViewCache view = new MemoryViewCache();
    private long nextId = 1;

    private static final class MemoryImage {
        private ImageInfo info;
        private long epoch;
        private long[] versions;
        private byte[][] data;
        private final ConcurrentSkipListMap<Long, BlockVersion> dirty = new ConcurrentSkipListMap<>();

        MemoryImage(ImageInfo info) {
            this.info = info;
            this.versions = new long[Math.toIntExact(info.blockCount())];
            this.data = new byte[versions.length][];
        }
    }

    @Override
    public synchronized ImageInfo createImage(String name, long sizeBytes, UUID identity) {
        check(name);
        checkSize(sizeBytes);
        if (sizeBytes / BLOCK_SIZE > Integer.MAX_VALUE) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image size " + sizeBytes + " is too large for the memory store");
        }
        if (byName.containsKey(name)) {
            throw ImageNames.exists(name);
        }
        MemoryImage image = new MemoryImage(new ImageInfo(nextId++, name, sizeBytes, Instant.now(), identity));
        byName.put(name, image);
        byId.put(image.info.id(), image);
        return image.info;
    }

    @Override
    public synchronized List<ImageInfo> listImages() {
        return byName.values().stream().map(image -> image.info).toList();
    }

    @Override
    public synchronized ImageInfo image(String name) {
        return named(name).info;
    }

    @Override
    public synchronized void deleteImage(String name) {
        MemoryImage image = named(name);
        byName.remove(name);
        byId.remove(image.info.id());
        view.forget(image.info.id());
    }

    @Override
    public synchronized ImageInfo resizeImage(String name, long sizeBytes) {
        checkSize(sizeBytes);
        MemoryImage image = named(name);
        image.info = image.info.resized(sizeBytes);
        int blocks = Math.toIntExact(image.info.blockCount());
        image.versions = Arrays.copyOf(image.versions, blocks);
        image.data = Arrays.copyOf(image.data, blocks);
        image.dirty.tailMap((long) blocks).clear();
        view.truncate(image.info.id(), blocks);
        return image.info;
    }

    @Override
    public ImageUsage usage(long imageId) {
        MemoryImage image = byId(imageId);
        long dataBlocks = 0;
        long zeroBlocks = 0;
        for (int i = 0; i < image.versions.length; i++) {
            if (image.data[i] != null) {
                dataBlocks++;
            } else if (image.versions[i] != 0) {
                zeroBlocks++;
            }
        }
        return new ImageUsage(dataBlocks, zeroBlocks);
    }

    @Override
    public synchronized long beginSession(long imageId) {
        return ++byId(imageId).epoch;
    }

    @Override
    public void read(long imageId, long firstBlock, int count, ByteBuffer destination) {
        byte[][] data = byId(imageId).data;
        for (int i = 0; i < count; i++) {
            byte[] block = data[(int) firstBlock + i];
            destination.put(block == null ? ZEROS : block);
        }
    }

    @Override
    public void write(long imageId, long firstBlock, ByteBuffer source, long version, Dirty dirty, boolean sync) {
        MemoryImage image = byId(imageId);
        int count = source.remaining() / BLOCK_SIZE;
        synchronized (image) {
            for (int i = 0; i < count; i++) {
                store(image, (int) firstBlock + i, source, version, dirty);
            }
        }
    }

    private static void store(MemoryImage image, int index, ByteBuffer source, long version, Dirty dirty) {
        byte[] block = image.data[index];
        if (block == null) {
            block = new byte[BLOCK_SIZE];
        }
        // Overwrite in place: reads copy out, so no reader holds on to a block's array.
        source.get(block);
        image.data[index] = block;
        image.versions[index] = version;
        if (dirty == Dirty.RECORD) {
            image.dirty.put((long) index, new BlockVersion(index, version, BlockState.DATA));
        }
    }

    @Override
    public void zero(long imageId, long firstBlock, long count, long version, Dirty dirty, boolean sync) {
        MemoryImage image = byId(imageId);
        synchronized (image) {
            for (int index = (int) firstBlock; index < firstBlock + count; index++) {
                if (image.data[index] != null) {
                    markZero(image, index, version, dirty);
                }
            }
        }
    }

    @Override
    public void zeroBlocks(long imageId, long[] blocks, long version, Dirty dirty, boolean sync) {
        MemoryImage image = byId(imageId);
        synchronized (image) {
            for (long block : blocks) {
                markZero(image, (int) block, version, dirty);
            }
        }
    }

    @Override
    public List<BlockVersion> readCopies(long imageId, long[] blocks, ByteBuffer destination) {
        MemoryImage image = byId(imageId);
        ImageNames.checkBlocks(imageId, image.versions.length, Arrays.stream(blocks));
        List<BlockVersion> versions = new ArrayList<>(blocks.length);
        synchronized (image) {
            for (long block : blocks) {
                int index = Math.toIntExact(block);
                byte[] data = image.data[index];
                destination.put(data == null ? ZEROS : data);
                versions.add(new BlockVersion(block, image.versions[index], state(image, index)));
            }
        }
        return versions;
    }

    @Override
    public boolean[] storeCopies(long imageId, List<Copy> copies, CopyRule rule, boolean sync) {
        MemoryImage image = byId(imageId);
        ImageNames.checkBlocks(imageId, image.versions.length, copies.stream().mapToLong(Copy::block));
        boolean[] stored = new boolean[copies.size()];
        synchronized (image) {
            for (int i = 0; i < stored.length; i++) {
                Copy copy = copies.get(i);
                int index = Math.toIntExact(copy.block());
                stored[i] = rule.accepts(copy, image.versions[index]);
                if (!stored[i]) {
                    continue;
                }
                if (copy.zero()) {
                    markZero(image, index, copy.version(), Dirty.SKIP);
                } else {
                    store(image, index, copy.data().duplicate(), copy.version(), Dirty.SKIP);
                }
            }
        }
        return stored;
    }

    @Override
    public void awaitStoredCopies(long imageId) {
        MemoryImage image = byId(imageId);
        synchronized (image) {
            // Nothing to do inside: storeCopies holds the image's monitor while it checks and stores.
        }
    }

    private static void markZero(MemoryImage image, int index, long version, Dirty dirty) {
        image.data[index] = null;
        image.versions[index] = version;
        if (dirty == Dirty.RECORD) {
            image.dirty.put((long) index, new BlockVersion(index, version, BlockState.ZERO));
        }
    }

    @Override
    public List<BlockVersion> dirtyBlocks(long imageId) {
        return List.copyOf(byId(imageId).dirty.values());
    }

    @Override
    public void markFlushed(long imageId, List<BlockVersion> flushed) {
        MemoryImage image = byId(imageId);
        for (BlockVersion entry : flushed) {
            image.dirty.remove(entry.block(), entry);
        }
    }

    @Override
    public void forEachBlock(long imageId, Consumer<BlockVersion> visitor) {
        MemoryImage image = byId(imageId);
        for (int i = 0; i < image.versions.length; i++) {
            BlockState state = state(image, i);
            if (state != BlockState.UNWRITTEN) {
                visitor.accept(new BlockVersion(i, image.versions[i], state));
            }
        }
    }

    @Override
    public List<BlockRun> allocation(long imageId, long firstBlock, long count) {
        MemoryImage image = byId(imageId);
        List<BlockRun> runs = new ArrayList<>();
        long runStart = firstBlock;
        BlockState runState = null;
        for (long block = firstBlock; block < firstBlock + count; block++) {
            BlockState state = state(image, (int) block);
            if (state != runState) {
                if (runState != null) {
                    runs.add(new BlockRun(runStart, block - runStart, runState));
                }
                runStart = block;
                runState = state;
            }
        }
        if (runState != null) {
            runs.add(new BlockRun(runStart, firstBlock + count - runStart, runState));
        }
        return runs;
    }

    private static BlockState state(MemoryImage image, int block) {
        if (image.data[block] != null) {
            return BlockState.DATA;
        }
        return image.versions[block] == 0 ? BlockState.UNWRITTEN : BlockState.ZERO;
    }

    @Override
    public void sync() {
        // Nothing is durable here, so there is nothing to wait for.
    }

    /** The cached global metadata of this store's images, in the heap as well. */
    public ViewCache view() {
        return view;
    }

    /** No block files, no index. */
    @Override
    public StoreStats stats() {
        return new StoreStats(0, 0, 0, 0, 0);
    }

    @Override
    public void close() {
        byId.clear();
    }

    private MemoryImage named(String name) {
        MemoryImage image = byName.get(name);
        if (image == null) {
            throw ImageNames.notFound(name);
        }
        return image;
    }

    private MemoryImage byId(long imageId) {
        MemoryImage image = byId.get(imageId);
        if (image == null) {
            throw new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image id " + imageId + " does not exist");
        }
        return image;
    }
}
