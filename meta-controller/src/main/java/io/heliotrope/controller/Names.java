package io.heliotrope.controller;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.regex.Pattern;

/** Rules for site and image names, which also name znodes, and the errors for unknown ones. */
public final class Names {
    private static final Pattern SITE = Pattern.compile("[a-z0-9-]{1,63}");
    private static final Pattern IMAGE = Pattern.compile("[a-z0-9._-]{1,63}");

    private Names() {}

    public static String site(String name) {
        if (name == null || !SITE.matcher(name).matches()) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "invalid site name '" + name + "': use 1 to 63 lowercase letters, digits or '-'");
        }
        return name;
    }

    public static String image(String name) {
        if (name == null || !IMAGE.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "invalid image name '" + name + "': use 1 to 63 lowercase letters, digits, '.', '_' or '-' (not '.' or '..')");
        }
        if (!Character.isLetterOrDigit(name.charAt(0))) {
            // Sites store images under the same name, and their stores take only names that start so.
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "invalid image name '" + name + "': start it with a letter or digit");
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
