package io.heliotrope.controller.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static java.util.Objects.requireNonNullElse;

/**
 * What a holder owes before it serves a {@code sync} image whose earlier holding died (its
 * lease expired and was granted anew) without a final flush: that holding's unflushed but
 * acknowledged writes are only at the sites that took its sync copies. {@code syncSites}
 * are the sets recorded in the dead holdings ({@link Lease#syncSites()}), every
 * acknowledged write being at every site of one set; {@code firstEpoch} to
 * {@code lastEpoch} are the dead holdings' epochs. A recovery flush commits the versions
 * of those epochs the sites hold, naming them as holders; {@link #NONE} when nothing is owed.
 */
public record SyncRecovery(List<String> deadHolders, long firstEpoch, long lastEpoch, List<List<String>> syncSites) {
    public static final SyncRecovery NONE = new SyncRecovery(List.of(), 0, 0, List.of());

    public SyncRecovery {
        deadHolders = List.copyOf(requireNonNullElse(deadHolders, List.<String>of()));
        syncSites = Lease.siteSets(syncSites);
    }

    public boolean pending() {
        return !syncSites.isEmpty();
    }

    /**
     * With the holding of {@code holder}, epochs {@code first} to {@code last}, that died
     * with these sync sites: a holder that died before it recovered an earlier holding leaves
     * both to the next one.
     */
    SyncRecovery plus(String holder, long first, long last, List<List<String>> sets) {
        Set<String> holders = new TreeSet<>(deadHolders);
        holders.add(holder);
        List<List<String>> union = new ArrayList<>(syncSites);
        sets.stream().filter(set -> !union.contains(set)).forEach(union::add);
        return new SyncRecovery(List.copyOf(holders), pending() ? Math.min(firstEpoch, first) : first, Math.max(lastEpoch, last), union);
    }

    /** Every site of every set, in name order. */
    public Set<String> sites() {
        Set<String> sites = new TreeSet<>();
        syncSites.forEach(sites::addAll);
        return sites;
    }

    /** Whether {@code epoch} is one of the dead holdings'. */
    public boolean covers(long epoch) {
        return pending() && firstEpoch <= epoch && epoch <= lastEpoch;
    }
}
