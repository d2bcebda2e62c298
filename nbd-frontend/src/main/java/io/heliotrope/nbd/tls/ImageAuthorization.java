package io.heliotrope.nbd.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Which client identities (the common name of their certificate) may open which images over
 * NBD, read only or read and write, in the spirit of qemu-nbd's {@code tls-authz}. Read from a
 * file of lines {@code IDENTITY IMAGE-GLOB ro|rw}, where {@code *} as the identity matches
 * every identity and the glob takes {@code *} and {@code ?}; {@code #} starts a comment. The
 * first line that matches both decides; an identity no line matches opens nothing, and the
 * images it may not open are left out of its {@code NBD_OPT_LIST}.
 */
public final class ImageAuthorization {
    /** Every client whose certificate our CA signed may read and write every image. */
    public static final ImageAuthorization ANY_CERTIFICATE = new ImageAuthorization(List.of(new Rule("*", Pattern.compile(".*"), Access.WRITE)));

    /** What a client may do with an image. */
    public enum Access {
        NONE,
        READ,
        WRITE
    }

    private record Rule(String identity, Pattern images, Access access) {}

    private final List<Rule> rules;

    private ImageAuthorization(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    public static ImageAuthorization load(Path file) {
        try {
            return parse(Files.readAllLines(file), file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the NBD authorization file " + file, e);
        }
    }

    /** The rules of {@code lines}; fails with {@code IllegalArgumentException} naming {@code source} and the first bad line. */
    public static ImageAuthorization parse(List<String> lines, String source) {
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).replaceFirst("#.*", "").strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] fields = line.split("\\s+");
            if (fields.length != 3 || !(fields[2].equals("ro") || fields[2].equals("rw"))) {
                throw new IllegalArgumentException(source + ":" + (i + 1) + ": expected 'IDENTITY IMAGE-GLOB ro|rw': " + lines.get(i));
            }
            rules.add(new Rule(fields[0], glob(fields[1]), fields[2].equals("rw") ? Access.WRITE : Access.READ));
        }
        return new ImageAuthorization(rules);
    }

    public Access access(String identity, String image) {
        requireNonNull(identity, "identity is null");
        for (Rule rule : rules) {
            if ((rule.identity().equals("*") || rule.identity().equals(identity)) && rule.images().matcher(image).matches()) {
                return rule.access();
            }
        }
        return Access.NONE;
    }

    private static Pattern glob(String glob) {
        StringBuilder regex = new StringBuilder();
        for (String part : glob.split("((?<=[*?])|(?=[*?]))")) {
            regex.append(switch (part) {
                case "*" -> ".*";
                case "?" -> ".";
                default -> Pattern.quote(part);
            });
        }
        return Pattern.compile(regex.toString());
    }
}
