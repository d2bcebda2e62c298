package io.heliotrope.storage.view;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.GlobalBlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * A controller in memory for one or more sites of a test: leases with epochs and a
 * delta log, enough to check what sites send and when.
 */
final class TestingController {
    private final Map<String, Long> sizes = new TreeMap<>();
    private final Map<String, String> holders = new TreeMap<>();
    private final Map<String, Long> epochs = new TreeMap<>();
    private final Map<String, List<List<GlobalBlock>>> logs = new TreeMap<>();
    private final Map<String, CountDownLatch[]> holds = new ConcurrentHashMap<>();

    synchronized void createImage(String name, long sizeBytes) {
        sizes.put(name, sizeBytes);
        epochs.put(name, 0L);
        logs.put(name, new ArrayList<>());
    }

    /** Moves the lease to another site, as if this one had stopped renewing. */
    synchronized void fence(String image, String site) {
        holders.put(image, site);
        epochs.merge(image, 1L, Long::sum);
    }

    /** Calls for {@code image} count {@code entered} down, then wait for {@code release}, outside this controller's lock. */
    void hold(String image, CountDownLatch entered, CountDownLatch release) {
        holds.put(image, new CountDownLatch[] {entered, release});
    }

    private void pass(String image) {
        CountDownLatch[] hold = holds.get(image);
        if (hold != null) {
            hold[0].countDown();
            try {
                hold[1].await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    synchronized String holder(String image) {
        return holders.get(image);
    }

    synchronized long metaSeq(String image) {
        return logs.get(image).size();
    }

    /** The committed view: for each block, its last committed entry. */
    synchronized Map<Long, GlobalBlock> view(String image) {
        Map<Long, GlobalBlock> view = new TreeMap<>();
        logs.get(image).forEach(delta -> delta.forEach(entry -> view.put(entry.block(), entry)));
        return view;
    }

    Controller forSite(String site) {
        return new Controller() {
            @Override
            public void register(String grpcAddress, String nbdAddress) {}

            @Override
            public List<String> imageNames() {
                synchronized (TestingController.this) {
                    return List.copyOf(sizes.keySet());
                }
            }

            @Override
            public Opened open(String image, long cachedMetaSeq) {
                pass(image);
                synchronized (TestingController.this) {
                    known(image);
                    String holder = holders.get(image);
                    if (holder != null && !holder.equals(site)) {
                        throw new HeliotropeException(ErrorCode.LEASE_HELD, "image '" + image + "' is open for write at site '" + holder + "'");
                    }
                    holders.put(image, site);
                    long epoch = epochs.merge(image, 1L, Long::sum);
                    List<GlobalBlock> tail = new ArrayList<>();
                    List<List<GlobalBlock>> log = logs.get(image);
                    log.subList((int) Math.min(cachedMetaSeq, log.size()), log.size()).forEach(tail::addAll);
                    return new Opened(epoch, Duration.ofMinutes(1), sizes.get(image), log.size(), false, tail);
                }
            }

            @Override
            public void renew(String image, long epoch) {
                pass(image);
                synchronized (TestingController.this) {
                    checkLease(image, epoch);
                }
            }

            @Override
            public long flush(String image, long epoch, List<BlockVersion> blocks, boolean release) {
                pass(image);
                synchronized (TestingController.this) {
                    known(image);
                    checkLease(image, epoch);
                    logs.get(image).add(blocks.stream()
                            .map(block -> new GlobalBlock(block.block(), block.version(), block.state() == BlockState.ZERO ? null : site))
                            .toList());
                    if (release) {
                        holders.remove(image);
                    }
                    return logs.get(image).size();
                }
            }

            private void checkLease(String image, long epoch) {
                if (!site.equals(holders.get(image)) || epochs.get(image) != epoch) {
                    throw new HeliotropeException(ErrorCode.STALE_LEASE, "epoch " + epoch + " of image '" + image + "' is stale");
                }
            }

            private void known(String image) {
                if (!sizes.containsKey(image)) {
                    throw new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image '" + image + "' does not exist");
                }
            }

            @Override
            public void close() {}
        };
    }
}
