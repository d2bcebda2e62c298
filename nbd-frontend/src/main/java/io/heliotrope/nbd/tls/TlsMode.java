package io.heliotrope.nbd.tls;

import java.util.Locale;

/**
 * Whether an NBD server offers TLS ({@code NBD_OPT_STARTTLS}): {@code OFF} never (the
 * protocol's NOTLS mode), {@code ON} to clients that ask while plaintext clients still
 * connect, {@code REQUIRE} for every client, which may send nothing but STARTTLS and ABORT
 * before (FORCEDTLS). The names are those of nbdkit's {@code --tls}.
 */
public enum TlsMode {
    OFF,
    ON,
    REQUIRE;

    /** The mode of a setting's text, whatever its case; fails naming the choices. */
    public static TlsMode parse(String text) {
        try {
            return valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tls must be off, on or require: " + text, e);
        }
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
