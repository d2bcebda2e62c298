package io.heliotrope.nbd.protocol;

import java.util.Optional;

/** The transmission-phase commands we serve, with their wire values. */
public enum NbdCommand {
    READ(0),
    WRITE(1),
    DISC(2),
    FLUSH(3),
    TRIM(4),
    CACHE(5),
    WRITE_ZEROES(6),
    BLOCK_STATUS(7);

    private static final NbdCommand[] BY_WIRE_VALUE = values();

    private final int wireValue;

    NbdCommand(int wireValue) {
        this.wireValue = wireValue;
    }

    public int wireValue() {
        return wireValue;
    }

    /** The lowercase name used as a metric tag. */
    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static Optional<NbdCommand> fromWire(int type) {
        return type >= 0 && type < BY_WIRE_VALUE.length ? Optional.of(BY_WIRE_VALUE[type]) : Optional.empty();
    }
}
