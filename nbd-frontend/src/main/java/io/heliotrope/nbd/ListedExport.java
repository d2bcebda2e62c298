package io.heliotrope.nbd;

import java.nio.charset.StandardCharsets;

import static io.heliotrope.nbd.protocol.NbdConstants.MAX_STRING_LENGTH;
import static java.util.Objects.requireNonNull;

/**
 * An export as {@code NBD_OPT_LIST} shows it: the name a client opens, and a description
 * for people, which the protocol lets a server send after the name (empty: none). Clients
 * such as {@code nbdinfo --list} print it as it is.
 */
public record ListedExport(String name, String description) {
    public ListedExport {
        requireNonNull(name, "name is null");
        requireNonNull(description, "description is null");
        if (description.getBytes(StandardCharsets.UTF_8).length > MAX_STRING_LENGTH) {
            throw new IllegalArgumentException("the description of export '" + name + "' is longer than " + MAX_STRING_LENGTH + " bytes");
        }
    }
}
