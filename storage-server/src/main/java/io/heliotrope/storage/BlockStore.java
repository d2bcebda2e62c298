package io.heliotrope.storage;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The data store of a site: images made of {@value #BLOCK_SIZE}-byte blocks, each
 * stored with the version of its copy (DESIGN.md sections 3 and 5).
 *
 * <p>A block is in one of three states: never written (version 0, reads as zeros),
 * data, or a zero marker (reads as zeros, holds no data). A block's version and data
 * change together, atomically, even across a crash. Calls block: callers run them on
 * an executor the store's owner bounds.
 */
public interface BlockStore extends AutoCloseable {
    int BLOCK_SIZE = 4096;

    ImageInfo createImage(String name, long sizeBytes);

    List<ImageInfo> listImages();

    /** Fails with {@code IMAGE_NOT_FOUND} when there is no such image. */
    ImageInfo image(String name);

    void deleteImage(String name);

    /** Changes the size; blocks beyond a smaller size are dropped. */
    ImageInfo resizeImage(String name, long sizeBytes);

    /** Counts the blocks of an image by state. */
    ImageUsage usage(long imageId);

    /** Starts a write session: returns a session epoch larger than any returned before for this image. */
    long beginSession(long imageId);

    /** Reads {@code count} blocks into {@code destination}, advancing its position. */
    void read(long imageId, long firstBlock, int count, ByteBuffer destination);

    /** Stores the whole blocks in {@code data} from {@code firstBlock} on, all with {@code version}. */
    void write(long imageId, long firstBlock, ByteBuffer data, long version, boolean sync);

    /**
     * Replaces the data of the blocks in the range with zero markers of {@code version}.
     * Blocks never written stay so: they already read as zeros.
     */
    void zero(long imageId, long firstBlock, long count, long version, boolean sync);

    /** The state of each block in the range, as runs in block order covering all of it. */
    List<BlockRun> allocation(long imageId, long firstBlock, long count);

    /** Makes every completed write durable. */
    void sync();

    @Override
    void close();

    /** A run of blocks in one state. */
    record BlockRun(long firstBlock, long count, BlockState state) {}

    enum BlockState {
        UNWRITTEN,
        DATA,
        ZERO
    }

    record ImageUsage(long dataBlocks, long zeroBlocks) {}
}
