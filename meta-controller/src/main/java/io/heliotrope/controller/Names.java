package io.heliotrope.controller;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.regex.Pattern;

/**
 * The rules for site, VM and application names, which also name znodes, and the errors for
 * unknown sites and images (image names: {@link io.heliotrope.image.ImageNames}, whose rule VM
 * and application names follow).
 */
public final class Names {
    private static final Pattern SITE = Pattern.compile("[a-z0-9-]{1,63}");
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");

    private Names() {}

    public static String site(String name) {
        if (name == null || !SITE.matcher(name).matches()) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "invalid site name '" + name + "': use 1 to 63 lowercase letters, digits or '-'");
        }
        return name;
    }

    /** Returns {@code name}, or fails with {@code INVALID_ARGUMENT}. */
    public static String vm(String name) {
        return name("VM", name);
    }

    /** Returns {@code name}, or fails with {@code INVALID_ARGUMENT}. */
    public static String application(String name) {
        return name("application", name);
    }

    private static String name(String kind, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "invalid " + kind + " name '" + name
                    + "': use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        return name;
    }

    public static HeliotropeException imageNotFound(String name) {
        return new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image '" + name + "' does not exist");
    }

    public static HeliotropeException siteNotFound(String name) {
        return new HeliotropeException(ErrorCode.SITE_NOT_FOUND, "site '" + name + "' is not registered");
    }
}
