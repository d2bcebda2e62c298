package io.heliotrope.image;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.regex.Pattern;

/**
 * The one rule for image names, which the controller and every site apply alike: a name
 * is also a znode, an NBD export and a key of a site's catalog. A name only finds an
 * image; what tells two images of one name apart is the identity the controller gives
 * each at creation.
 */
public final class ImageNames {
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");

    private ImageNames() {}

    /** Returns {@code name}, or fails with {@code INVALID_ARGUMENT}. */
    public static String check(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "invalid image name '" + name
                    + "': use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        return name;
    }
}
