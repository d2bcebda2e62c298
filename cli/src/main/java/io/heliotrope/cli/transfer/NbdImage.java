package io.heliotrope.cli.transfer;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.net.InetSocketAddress;

import static java.util.Objects.requireNonNull;

/**
 * An image as a site's NBD server serves it: where an import writes and an export reads.
 * With a controller, opening it for write at that site takes the image's write lease.
 */
public record NbdImage(String host, int port, String name) {
    public NbdImage {
        requireNonNull(host, "host is null");
        requireNonNull(name, "name is null");
    }

    /** The image {@code name} at the NBD server at {@code address}, {@code HOST:PORT}. */
    static NbdImage at(String address, String name) {
        int colon = address.lastIndexOf(':');
        try {
            return new NbdImage(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)), name);
        } catch (RuntimeException e) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "invalid NBD address '" + address + "': expected HOST:PORT");
        }
    }

    InetSocketAddress socketAddress() {
        return new InetSocketAddress(host, port);
    }

    /** As qemu-img and libnbd name it. */
    String uri() {
        return "nbd://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + "/" + name;
    }
}
