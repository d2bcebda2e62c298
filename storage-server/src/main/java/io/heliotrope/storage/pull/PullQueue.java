package io.heliotrope.storage.pull;

import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.heat.Heat;
import io.heliotrope.storage.view.ImageSession;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;

/**
 * The order in which a pull takes the blocks its site lacks (DESIGN.md section 4), in three
 * tiers: the aligned groups around this site's own misses (a database reads the neighbouring
 * pages next), the heat the other sites knew (newest session first, hottest first), then the
 * rest in block order, once the heat came or was waited for long enough. {@link PullOrder#BLOCK}
 * takes the rest only, from the start.
 *
 * <p>A block is taken once per run, and only while its stale entry holds data: a block written
 * or fetched here meanwhile, or a zero marker, is passed over. Thread-safe; cheap (stale entries
 * are in-memory lookups).
 */
final class PullQueue {
    /** Blocks of the rest looked at in one lookup of the stale set. */
    private static final int CHUNK = 4096;

    private final ImageSession session;
    private final long blockCount;
    private final boolean byHeat;
    private final int groupBlocks;
    private final int missedGroups;
    /** The blocks taken: 32 KiB per GiB of image at most, grown as blocks are taken. */
    private final BitSet requested;
    /** The first blocks of the groups around misses, oldest first. */
    private final ArrayDeque<Long> groups = new ArrayDeque<>();
    private long groupNext;
    private long groupEnd;
    private final List<Heat> heats = new ArrayList<>();
    private int heatIndex;
    private int heatPosition;
    private boolean restAllowed;
    private long cursor;
    /** What is left of the chunk before the cursor. */
    private Iterator<GlobalBlock> chunk = Collections.emptyIterator();

    PullQueue(ImageSession session, PullOrder order, PullConfig config) {
        this.session = session;
        this.blockCount = session.info().sizeBytes() / BLOCK_SIZE;
        this.byHeat = order == PullOrder.HEAT;
        this.groupBlocks = config.groupBlocks();
        this.missedGroups = config.missedGroups();
        this.requested = new BitSet();
        this.restAllowed = !byHeat;
    }

    /** A foreground read is fetching these: their groups come first, the latest misses last. */
    synchronized void missed(List<GlobalBlock> blocks) {
        if (!byHeat) {
            return;
        }
        for (GlobalBlock block : blocks) {
            long first = block.block() & -groupBlocks;
            if (!Long.valueOf(first).equals(groups.peekLast())) {
                groups.addLast(first);
                if (groups.size() > missedGroups) {
                    groups.removeFirst();
                }
            }
        }
    }

    /** What the other sites knew of the image's heat, the newest session first; the rest may follow it. */
    synchronized void heat(List<Heat> answers) {
        heats.addAll(answers);
        restAllowed = true;
    }

    /** The heat did not come in time: the rest may go before it. */
    synchronized void heatWaited() {
        restAllowed = true;
    }

    /** The next block to pull, marked as taken; null when none is due now. */
    synchronized GlobalBlock next() {
        GlobalBlock next = nextMissed();
        if (next == null) {
            next = nextHot();
        }
        if (next == null && restAllowed) {
            next = nextOfTheRest();
        }
        return next;
    }

    /** Whether every tier was gone through: only {@link #rescan()} brings more. */
    synchronized boolean exhausted() {
        return groupNext >= groupEnd && groups.isEmpty() && heatIndex >= heats.size() && restAllowed && cursor >= blockCount && !chunk.hasNext();
    }

    /** Goes through the rest again, every block takeable once more: for blocks that stayed stale, or a count that drifted. */
    synchronized void rescan() {
        requested.clear();
        cursor = 0;
        chunk = Collections.emptyIterator();
    }

    private GlobalBlock nextMissed() {
        while (true) {
            while (groupNext < groupEnd) {
                GlobalBlock taken = take(groupNext++);
                if (taken != null) {
                    return taken;
                }
            }
            Long first = groups.pollFirst();
            if (first == null) {
                return null;
            }
            groupNext = first;
            groupEnd = Math.min(blockCount, first + groupBlocks);
        }
    }

    private GlobalBlock nextHot() {
        for (; heatIndex < heats.size(); heatIndex++, heatPosition = 0) {
            long[] blocks = heats.get(heatIndex).blocks();
            while (heatPosition < blocks.length) {
                GlobalBlock taken = take(blocks[heatPosition++]);
                if (taken != null) {
                    return taken;
                }
            }
        }
        return null;
    }

    /** The next of the rest, from a copy of the stale entries of one chunk at a time (a copy per block taken cost the whole CPU). */
    private GlobalBlock nextOfTheRest() {
        while (true) {
            while (chunk.hasNext()) {
                GlobalBlock taken = take(chunk.next().block());
                if (taken != null) {
                    return taken;
                }
            }
            if (cursor >= blockCount) {
                return null;
            }
            long end = Math.min(blockCount, cursor + CHUNK);
            chunk = session.stale(cursor, end - cursor).values().iterator();
            cursor = end;
        }
    }

    private GlobalBlock take(long block) {
        if (block < 0 || block >= blockCount || requested.get((int) block)) {
            return null;
        }
        GlobalBlock entry = session.staleEntry(block);
        if (entry == null || entry.zero()) {
            return null;
        }
        requested.set((int) block);
        return entry;
    }
}
