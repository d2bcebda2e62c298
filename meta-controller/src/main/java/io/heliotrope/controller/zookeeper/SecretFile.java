package io.heliotrope.controller.zookeeper;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;

/**
 * The file that holds a cluster's ZooKeeper secret: one line, readable by its owner only (as
 * ssh insists of a private key). Every controller of the cluster reads the same file, or a copy.
 */
public final class SecretFile {
    /** 32 random bytes: 256 bits, beyond any guessing through ZooKeeper or through the SHA-1 digest in an ACL. */
    private static final int SECRET_BYTES = 32;
    /** The shortest secret accepted from an operator's file. */
    static final int MIN_LENGTH = 16;
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private SecretFile() {}

    /** The controllers' ACL for the secret in {@code file}; fails naming the file when it is missing, short or readable by others. */
    public static ControllerAcl read(Path file) {
        String secret;
        try {
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
            if (!OWNER_ONLY.containsAll(permissions)) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "ZooKeeper secret file " + file + " is readable by others ("
                        + PosixFilePermissions.toString(permissions) + "): chmod 600 it");
            }
            secret = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "cannot read the ZooKeeper secret file " + file + ": " + e, e);
        }
        if (secret.length() < MIN_LENGTH || secret.chars().anyMatch(Character::isWhitespace)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "ZooKeeper secret file " + file + " must hold one line of at least "
                    + MIN_LENGTH + " characters without spaces; it holds " + secret.length());
        }
        return ControllerAcl.digest(secret);
    }

    /** Writes a new random secret to {@code file}, readable by its owner only, unless the file exists; returns whether it wrote one. */
    public static boolean createIfMissing(Path file) {
        byte[] random = new byte[SECRET_BYTES];
        new SecureRandom().nextBytes(random);
        String secret = Base64.getUrlEncoder().withoutPadding().encodeToString(random) + "\n";
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path created = Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            Files.writeString(created, secret, StandardCharsets.UTF_8);
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the ZooKeeper secret file " + file, e);
        }
    }
}
