package io.heliotrope.controller.zookeeper;

import io.heliotrope.error.HeliotropeException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestControllerAcl {
    private static final String SECRET = "0123456789abcdefghij";

    @TempDir
    Path directory;

    @Test
    void securedGivesEveryPathAllPermissionsForTheControllersDigestAndNothingToAnyoneElse() throws Exception {
        ControllerAcl acl = ControllerAcl.digest(SECRET);
        // What ZooKeeper's DigestAuthenticationProvider.generateDigest gives "heliotrope:" + SECRET.
        List<ACL> expected = List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", "heliotrope:DqhqzVh3q9CQTdQc/WhPce4DiSE=")));

        assertThat(acl.secured()).isTrue();
        assertThat(acl.acl()).isEqualTo(expected);
        assertThat(acl.getDefaultAcl()).isEqualTo(expected);
        for (String path : List.of("/heliotrope", "/heliotrope/images/vm/log/0000000001", "/heliotrope/scheduler/leader/_c_x-latch-1", "/elsewhere")) {
            assertThat(acl.getAclForPath(path)).as(path).isEqualTo(expected);
        }
        assertThat(acl.acl()).extracting(entry -> entry.getId().getScheme()).doesNotContain("world", "ip", "auth");
        assertThat(acl.authorization()).singleElement().satisfies(auth -> {
            assertThat(auth.getScheme()).isEqualTo("digest");
            assertThat(new String(auth.getAuth(), StandardCharsets.UTF_8)).isEqualTo("heliotrope:" + SECRET);
        });
        assertThat(ControllerAcl.digest(SECRET + "x").acl()).isNotEqualTo(expected);
        assertThat(acl.toString()).doesNotContain(SECRET);
    }

    @Test
    void openLetsAnyoneDoAnythingAndAuthenticatesNothing() {
        assertThat(ControllerAcl.OPEN.secured()).isFalse();
        assertThat(ControllerAcl.OPEN.getAclForPath("/heliotrope")).isEqualTo(List.of(new ACL(ZooDefs.Perms.ALL, new Id("world", "anyone"))));
        assertThat(ControllerAcl.OPEN.authorization()).isEmpty();
    }

    @Test
    void aNewSecretFileIsLongRandomAndTheOwnersOnlyAndIsNeverOverwritten() throws IOException {
        Path file = directory.resolve("state").resolve("zookeeper-secret");

        assertThat(SecretFile.createIfMissing(file)).isTrue();
        String secret = Files.readString(file);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(secret).matches("[A-Za-z0-9_-]{43}\n");
        assertThat(SecretFile.createIfMissing(file)).isFalse();
        assertThat(Files.readString(file)).isEqualTo(secret);
        assertThat(SecretFile.read(file).acl()).isEqualTo(ControllerAcl.digest(secret.strip()).acl());
        Path other = directory.resolve("other");
        SecretFile.createIfMissing(other);
        assertThat(SecretFile.read(other).acl()).isNotEqualTo(SecretFile.read(file).acl());
    }

    @Test
    void aSecretFileReadableByOthersShortOrMissingIsRefusedNamingIt() throws IOException {
        Path file = Files.writeString(directory.resolve("secret"), SECRET + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> SecretFile.read(file)).isInstanceOf(HeliotropeException.class)
                .hasMessage("ZooKeeper secret file " + file + " is readable by others (rw-r--r--): chmod 600 it");

        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        Files.writeString(file, "short\n");
        assertThatThrownBy(() -> SecretFile.read(file))
                .hasMessage("ZooKeeper secret file " + file + " must hold one line of at least 16 characters without spaces; it holds 5");

        Path missing = directory.resolve("missing");
        assertThatThrownBy(() -> SecretFile.read(missing)).hasMessageStartingWith("cannot read the ZooKeeper secret file " + missing + ": ");
    }
}
