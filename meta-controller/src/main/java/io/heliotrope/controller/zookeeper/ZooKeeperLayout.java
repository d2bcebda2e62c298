package io.heliotrope.controller.zookeeper;

import static java.util.Objects.requireNonNull;

/**
 * Where the controller keeps its state in ZooKeeper:
 * <pre>
 * ROOT/sites/NAME                       site (JSON)
 * ROOT/images/NAME/config               image configuration (JSON)
 * ROOT/images/NAME/lease                write lease (JSON, compare-and-set on its version)
 * ROOT/images/NAME/moves                last lease holder and lease moves counted (JSON, written with each grant)
 * ROOT/images/NAME/meta                 metaSeq, snapshotSeq and sizes (JSON)
 * ROOT/images/NAME/log/SEQ              one committed delta (JSON head, binary payload)
 * ROOT/images/NAME/snap/SEQ             the snapshot at SEQ (same form)
 * ROOT/images/NAME/staging/ID/N         chunk N of a large payload (binary)
 * ROOT/rtt/SITE                         the round-trip times SITE measured to its peers (JSON)
 * ROOT/vms/NAME                         a VM: definition, site, migrations (JSON, compare-and-set on its version)
 * ROOT/apps/NAME                        an application with its decisions (heliotrope.scheduler.v1.Application in
 *                                       protobuf's JSON, compare-and-set on its version)
 * ROOT/workloads/NAME/r-MILLIS-SEQ      one workload report of application NAME as received (JSON), MILLIS its
 *                                       receive time, SEQ ZooKeeper's counter
 * ROOT/scheduler/leader/*               the schedulers' leader election (Curator's LeaderLatch)
 * ROOT/acl-secured                      there once a controller with the cluster's secret set its ACL on every znode
 *                                       ({@link AclMigration})
 * </pre>
 */
public record ZooKeeperLayout(String root) {
    public ZooKeeperLayout {
        requireNonNull(root, "root is null");
        if (!root.startsWith("/") || root.endsWith("/")) {
            throw new IllegalArgumentException("ZooKeeper root must be an absolute path without a trailing '/': " + root);
        }
    }

    public String sites() {
        return root + "/sites";
    }

    public String site(String name) {
        return sites() + "/" + name;
    }

    public String images() {
        return root + "/images";
    }

    public String rtt() {
        return root + "/rtt";
    }

    public String rtt(String site) {
        return rtt() + "/" + site;
    }

    public String vms() {
        return root + "/vms";
    }

    public String vm(String name) {
        return vms() + "/" + name;
    }

    public String applications() {
        return root + "/apps";
    }

    public String application(String name) {
        return applications() + "/" + name;
    }

    public String workloads() {
        return root + "/workloads";
    }

    public String workloads(String application) {
        return workloads() + "/" + application;
    }

    public String schedulerLeader() {
        return root + "/scheduler/leader";
    }

    public String aclSecured() {
        return root + "/acl-secured";
    }

    public ImagePaths image(String name) {
        return new ImagePaths(images() + "/" + name);
    }
}
