package io.heliotrope.storage.image.mode;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which sites take a {@code sync} image's copies, for one open of it: the members, chosen
 * from the registry as it lists sites now (a site that registered after the open is used
 * from the next write); the sites that failed a push, until they answer again; and the
 * blocks whose writes reached fewer sites than the image's sync copies, until they reach
 * the members. The image is degraded from such a write until then. Thread-safe.
 */
final class SyncMembers {
    private final int copies;
    private final Comparator<String> preference;
    /** The sites that take a copy of every write, at most {@code copies}. */
    private final List<String> members = new ArrayList<>();
    /** Sites that failed a push, with why, until they answer a ping. */
    private final Map<String, String> down = new TreeMap<>();
    /** Blocks written with fewer copies than asked, not yet pushed to the members. */
    private final BitSet missed = new BitSet();
    /** The blocks a catch-up is pushing now; null when none runs. */
    private long[] catchingUp;
    private boolean degraded;

    /** @param preference the order in which sites become members, the preferred first */
    SyncMembers(int copies, Comparator<String> preference) {
        this.copies = copies;
        this.preference = preference;
    }

    /**
     * The members, after the sites the registry no longer lists left them and, while there
     * are fewer than {@code copies}, the preferred of the {@code known} sites that are
     * neither members nor down joined them.
     */
    synchronized List<String> members(List<String> known) {
        members.retainAll(known);
        if (members.size() < copies) {
            known.stream().filter(this::eligible).sorted(preference).limit(copies - members.size()).forEach(members::add);
        }
        return List.copyOf(members);
    }

    /**
     * {@code failed} did not take a copy: it is down until it answers again. Returns the site
     * that takes this write's copy instead: a member the write has not {@code tried}, else
     * (when there are fewer members than copies) the preferred known site that is neither, now
     * a member; or null when there is none. Either way it joins {@code tried}.
     */
    synchronized String replace(String failed, String why, Set<String> tried, List<String> known) {
        fail(failed, why);
        String next = members.stream().filter(site -> !tried.contains(site)).findFirst()
                .orElseGet(() -> members.size() >= copies ? null
                        : known.stream().filter(site -> eligible(site) && !tried.contains(site)).min(preference).orElse(null));
        if (next != null) {
            tried.add(next);
            if (!members.contains(next)) {
                members.add(next);
            }
        }
        return next;
    }

    /** {@code site} failed a push: it leaves the members until it answers again. Returns whether it was up until now. */
    synchronized boolean fail(String site, String why) {
        members.remove(site);
        return down.put(site, why) == null;
    }

    /** {@code site} answered again: it may become a member. */
    synchronized void up(String site) {
        down.remove(site);
    }

    synchronized List<String> down() {
        return List.copyOf(down.keySet());
    }

    /**
     * A write of blocks [first, first + count) reached fewer sites than the image's sync
     * copies: its blocks go to the members once there are enough of them, and until then the
     * image is degraded. Returns whether it was healthy until now.
     */
    synchronized boolean missed(long first, long count) {
        missed.set(Math.toIntExact(first), Math.toIntExact(first + count));
        boolean was = !degraded;
        degraded = true;
        return was;
    }

    synchronized boolean degraded() {
        return degraded;
    }

    /** The blocks to push to the members that missed them, taken from the missed ones. */
    record CatchUp(long[] blocks, List<String> sites) {}

    /**
     * Up to {@code most} of the missed blocks and the members to push them to, when a
     * catch-up is due: none runs, some blocks were missed and there are {@code copies}
     * members. Else null. The blocks count as missed no more until {@link #caughtUp} says
     * they did not arrive.
     */
    synchronized CatchUp catchUp(int most) {
        if (catchingUp != null || missed.isEmpty() || members.size() < copies) {
            return null;
        }
        long[] blocks = missed.stream().limit(most).asLongStream().toArray();
        for (long block : blocks) {
            missed.clear((int) block);
        }
        catchingUp = blocks;
        return new CatchUp(blocks, List.copyOf(members));
    }

    /** The catch-up ended; unless {@code arrived}, its blocks count as missed again. */
    synchronized void caughtUp(boolean arrived) {
        if (!arrived) {
            for (long block : catchingUp) {
                missed.set((int) block);
            }
        }
        catchingUp = null;
    }

    /** Whether the image is degraded but has all its members, which hold every block it missed. */
    synchronized boolean mayHeal() {
        return degraded && members.size() >= copies && missed.isEmpty() && catchingUp == null;
    }

    /** Whether the image just became healthy: {@link #mayHeal()} held, and no longer does. */
    synchronized boolean healed() {
        if (mayHeal()) {
            degraded = false;
            return true;
        }
        return false;
    }

    synchronized SyncStatus status(String image, int min) {
        long owed = missed.cardinality() + (catchingUp == null ? 0 : catchingUp.length);
        return new SyncStatus(image, copies, min, members, down, owed, degraded || members.size() < copies);
    }

    private boolean eligible(String site) {
        return !members.contains(site) && !down.containsKey(site);
    }
}
