package io.heliotrope.storage.view;

/** Counts where the blocks of reads came from: the local hit ratio of a site. */
@FunctionalInterface
public interface ReadCounter {
    ReadCounter NONE = (here, fetched) -> {};

    /**
     * A read of {@code here + fetched} blocks: {@code here} were current at this site (or
     * read as zeros), {@code fetched} had to come from another site first.
     */
    void read(long here, long fetched);
}
