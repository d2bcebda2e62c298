package io.heliotrope.controller.site;

import io.heliotrope.controller.Names;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import static java.util.Objects.requireNonNullElse;

/** A datacenter: its name, where its storage gRPC and NBD servers listen, and its egress price. */
public record Site(String name, String grpcAddress, String nbdAddress, double egressPricePerGb) {
    public Site {
        Names.site(name);
        grpcAddress = requireNonNullElse(grpcAddress, "");
        nbdAddress = requireNonNullElse(nbdAddress, "");
        if (!(egressPricePerGb >= 0) || Double.isInfinite(egressPricePerGb)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "site '" + name + "': egress price must be a finite number >= 0, not " + egressPricePerGb);
        }
    }
}
