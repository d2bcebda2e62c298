package io.heliotrope.controller.zookeeper;

import org.apache.curator.framework.AuthInfo;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Who may touch the znodes a controller creates, and how a controller proves it is one. Secured:
 * every znode gets one ACL entry, all permissions for ZooKeeper's {@code digest} identity
 * {@value #USER}:SECRET, which every controller of a cluster adds to its session; no one else may
 * read, list, create, write, delete or re-ACL. Open: anyone may do anything (the default before
 * issue #27, kept for a controller given no secret).
 * <p>
 * The same list goes to every path ({@link #getAclForPath}): to Curator's creates, their
 * {@code creatingParentsIfNeeded} parents and recipes (the scheduler's leader latch), and to the
 * creates of a {@link Transaction}, which bypass Curator.
 */
public final class ControllerAcl implements ACLProvider {
    /** The digest user every controller authenticates as; its password is the cluster's secret. */
    public static final String USER = "heliotrope";
    /** ZooKeeper's {@code OPEN_ACL_UNSAFE}, spelled out: its constant's annotations are not on the compiler's class path. */
    public static final ControllerAcl OPEN = new ControllerAcl(List.of(new ACL(ZooDefs.Perms.ALL, new Id("world", "anyone"))), List.of());

    private final List<ACL> acl;
    private final List<AuthInfo> authorization;

    private ControllerAcl(List<ACL> acl, List<AuthInfo> authorization) {
        // Not List.copyOf: ZooKeeper.create checks acl.contains(null), which an immutable List.of refuses with an NPE.
        this.acl = Collections.unmodifiableList(new ArrayList<>(acl));
        this.authorization = List.copyOf(authorization);
    }

    /** Znodes for the controllers that know {@code secret}, and only for them. */
    public static ControllerAcl digest(String secret) {
        requireNonNull(secret, "secret is null");
        String credentials = USER + ":" + secret;
        Id controllers = new Id("digest", digestOf(credentials));
        return new ControllerAcl(List.of(new ACL(ZooDefs.Perms.ALL, controllers)),
                List.of(new AuthInfo("digest", credentials.getBytes(StandardCharsets.UTF_8))));
    }

    /**
     * The id ZooKeeper's {@code digest} scheme gives {@code user:password}: the user, then the
     * Base64 of the SHA-1 of the whole (what its {@code DigestAuthenticationProvider} computes
     * with its default algorithm; that class is the server's, whose annotations the compiler
     * cannot resolve from here).
     */
    static String digestOf(String credentials) {
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA1").digest(credentials.getBytes(StandardCharsets.UTF_8));
            return credentials.substring(0, credentials.indexOf(':')) + ":" + Base64.getEncoder().encodeToString(sha1);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("ZooKeeper's digest algorithm is missing from this JVM", e);
        }
    }

    /** Whether a session needs the secret to touch these znodes. */
    public boolean secured() {
        return !authorization.isEmpty();
    }

    /** The ACL of every znode. */
    public List<ACL> acl() {
        return acl;
    }

    /** What a session adds to prove it is a controller: nothing when open. */
    public List<AuthInfo> authorization() {
        return authorization;
    }

    @Override
    public List<ACL> getDefaultAcl() {
        return acl;
    }

    @Override
    public List<ACL> getAclForPath(String path) {
        return acl;
    }

    @Override
    public String toString() {
        return secured() ? "digest " + USER + ", all permissions, no one else" : "open to anyone";
    }
}
