package io.heliotrope.controller.site;

import io.heliotrope.controller.Names;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import static java.util.Objects.requireNonNullElse;

/**
 * A datacenter: its name, where its storage gRPC and NBD servers listen, its egress price, and
 * what the scheduler places by: the memory it gives its VMs all together (0: no limit) and
 * the round trip between two of its hosts, L(x, x) of the RTT matrix (0 given: 1 ms).
 */
public record Site(String name, String grpcAddress, String nbdAddress, double egressPricePerGb, long vmMemoryBytes, long intraSiteRttMicros) {
    public static final long DEFAULT_INTRA_SITE_RTT_MICROS = 1000;

    public Site {
        Names.site(name);
        grpcAddress = requireNonNullElse(grpcAddress, "");
        nbdAddress = requireNonNullElse(nbdAddress, "");
        if (!(egressPricePerGb >= 0) || Double.isInfinite(egressPricePerGb)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "site '" + name + "': egress price must be a finite number >= 0, not " + egressPricePerGb);
        }
        if (vmMemoryBytes < 0 || intraSiteRttMicros < 0) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "site '" + name + "': VM memory and intra-site RTT must be at most "
                    + Long.MAX_VALUE + ", not " + Long.toUnsignedString(vmMemoryBytes) + " bytes and " + Long.toUnsignedString(intraSiteRttMicros) + " us");
        }
        intraSiteRttMicros = intraSiteRttMicros == 0 ? DEFAULT_INTRA_SITE_RTT_MICROS : intraSiteRttMicros;
    }
}
