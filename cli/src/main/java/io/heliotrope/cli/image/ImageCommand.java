package io.heliotrope.cli.image;

import io.heliotrope.cli.client.CatalogClient;
import io.heliotrope.cli.client.ImageClient;
import io.heliotrope.cli.client.SiteChoice;
import io.heliotrope.cli.client.Target;
import io.heliotrope.cli.client.TargetOptions;
import io.heliotrope.cli.print.Json;
import io.heliotrope.cli.print.Progress;
import io.heliotrope.cli.print.Sizes;
import io.heliotrope.cli.transfer.ImageFormat;
import io.heliotrope.cli.transfer.ImageTransfer;
import io.heliotrope.cli.transfer.TransferRoutes;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.storage.v1.ImageInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import static io.heliotrope.cli.print.Sizes.format;

@Command(name = "image",
        mixinStandardHelpOptions = true,
        description = "Create, list, inspect, resize, remove, import and export images. With a controller (--controller, $"
                + Target.ENV + ", or the one `helio up` started) these are the images of its catalog, as every site has them; "
                + "without one, or with --server, the images of that one site.",
        subcommands = {
                ImageCommand.Create.class,
                ImageCommand.List.class,
                ImageCommand.Show.class,
                ImageCommand.Set.class,
                ImageCommand.Remove.class,
                ImageCommand.Resize.class,
                ImageCommand.BreakLease.class,
                ImageCommand.Import.class,
                ImageCommand.Export.class})
public final class ImageCommand {
    @Mixin
    TargetOptions target;

    /** A subcommand that talks to the controller, or to a standalone site: each does what its target can. */
    abstract static class Subcommand implements Callable<Integer> {
        @ParentCommand
        ImageCommand parent;

        @Override
        public Integer call() throws Exception {
            Target target = parent.target.target();
            if (target.kind() == Target.Kind.CONTROLLER) {
                try (CatalogClient catalog = new CatalogClient(target)) {
                    run(catalog, System.out);
                }
            } else {
                try (ImageClient site = new ImageClient(target)) {
                    run(site, System.out);
                }
            }
            return 0;
        }

        abstract void run(ImageClient site, PrintStream out) throws Exception;

        abstract void run(CatalogClient catalog, PrintStream out) throws Exception;
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create an empty image (reads as zeros).")
    static final class Create extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--size", required = true, paramLabel = "SIZE", converter = Sizes.class,
                description = "Size, a multiple of 4096 bytes: 4096, 256M, 10G, 1T.")
        long size;

        @Mixin
        ReplicationOptions replication;

        @Override
        void run(ImageClient site, PrintStream out) {
            replication.requireNone("image create", site.target());
            ImageInfo image = site.create(name, size);
            out.println("created " + image.getName() + " (" + format(image.getSizeBytes()) + ")");
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) {
            ImageConfig image = catalog.create(name, size, replication.toProto()).getConfig();
            out.println("created " + image.getName() + " (" + format(image.getSizeBytes()) + ", " + ReplicationOptions.mode(image) + ")");
        }
    }

    @Command(name = "set", mixinStandardHelpOptions = true,
            description = "Change an image's replication settings in the controller's catalog; a site applies them from the image's next open.")
    static final class Set extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Mixin
        ReplicationOptions replication;

        @Override
        void run(ImageClient site, PrintStream out) {
            throw ReplicationOptions.noneAt("image set", site.target());
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) {
            if (!replication.any()) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "'image set " + name + "': nothing to change; see 'helio image set --help'");
            }
            ImageStatus status = catalog.set(name, replication.toProto());
            out.println("changed " + name + "; sites apply it from the image's next open");
            ImageShow.replication(status.getConfig(), out);
        }
    }

    @Command(name = "ls", mixinStandardHelpOptions = true,
            description = "List images. With a controller: one line per image of its catalog, with its lease (holder and epoch) "
                    + "and the sites its latest blocks are at; without: the images of the site and their data.")
    static final class List extends Subcommand {
        @Option(names = "--json", description = "Print JSON instead (see README, Scripts): with a controller, its ClusterStatus "
                + "with the images alone; without, the site's ListImagesResponse.")
        boolean json;

        @Override
        void run(ImageClient site, PrintStream out) {
            Json.print(json, site.list(), out, SiteImages::list);
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) {
            ClusterStatus images = catalog.clusterStatus().toBuilder().clearSites().clearRtt().build();
            Json.print(json, images, out, (cluster, to) -> ImageList.print(cluster.getImagesList(), to, ""));
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Show one image. With a controller: its settings, lease and metadata, and per site the blocks whose "
                    + "latest version is there, the data stored, the blocks not yet flushed, the propagation queue and connections.")
    static final class Show extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--json", description = "Print JSON instead (see README, Scripts): with a controller, its ClusterImage; "
                + "without, the site's ImageInfo.")
        boolean json;

        @Override
        void run(ImageClient site, PrintStream out) {
            Json.print(json, site.get(name), out, SiteImages::show);
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) {
            ClusterStatus cluster = catalog.clusterStatus(name);
            if (json) {
                Json.print(cluster.getImages(0), out);
            } else {
                ImageShow.print(cluster, out);
            }
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true, description = "Remove an image and its data. Refused while it is attached.")
    static final class Remove extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        void run(ImageClient site, PrintStream out) {
            site.delete(name);
            out.println("removed " + name);
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) {
            catalog.delete(name);
            out.println("removed " + name);
        }
    }

    @Command(name = "resize", mixinStandardHelpOptions = true,
            description = "Grow or shrink an image. Shrinking drops the data past the new end. Refused while attached. "
                    + "Standalone sites only, for now.")
    static final class Resize extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--size", required = true, paramLabel = "SIZE", converter = Sizes.class, description = "New size, a multiple of 4096 bytes.")
        long size;

        @Override
        void run(ImageClient site, PrintStream out) {
            ImageInfo image = site.resize(name, size);
            out.println("resized " + image.getName() + " to " + format(image.getSizeBytes()));
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "'image resize': not supported yet for the images of a controller's catalog");
        }
    }

    @Command(name = "break-lease", mixinStandardHelpOptions = true,
            description = {"End the write lease of a site that is dead, as if it had expired: the next write open takes a new epoch "
                    + "and the dead site's late flushes are refused (a sync image's copies are recovered by the next writer).",
                    "Name the lease you break, holder and epoch, as `helio image show` prints it; without them this prints the lease."})
    static final class BreakLease extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--holder", paramLabel = "SITE", description = "The site that holds the lease.")
        String holder;

        @Option(names = "--epoch", paramLabel = "N", description = "The lease's epoch.")
        Long epoch;

        @Override
        void run(ImageClient site, PrintStream out) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "'image break-lease': " + site.target().describe()
                    + " keeps no write leases; a controller does");
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) {
            Lease lease = catalog.lease(name);
            String of = "the write lease of " + name;
            String by = "held by " + lease.getHolder() + " at epoch " + lease.getEpoch();
            if (lease.getHolder().isEmpty()) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "nobody holds " + of + " (epoch " + lease.getEpoch() + "); nothing to break");
            }
            if (holder == null || epoch == null) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, of + " is " + by + "; to break it, name it: helio image break-lease "
                        + name + " --holder " + lease.getHolder() + " --epoch " + lease.getEpoch());
            }
            if (!holder.equals(lease.getHolder()) || epoch != lease.getEpoch()) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, of + " is " + by + ", not by " + holder + " at epoch " + epoch
                        + "; nothing broken");
            }
            Lease broken = catalog.breakLease(name, holder, epoch);
            out.println("broke " + of + " " + by + "; the next write open takes epoch " + (broken.getEpoch() + 1)
                    + (broken.getSyncSitesCount() == 0 ? "" : " and recovers the writes its sync sites hold"));
        }
    }

    /** {@code --site}: which of the controller's sites the data goes through. */
    abstract static class Transfer extends Subcommand {
        @Option(names = "--site", paramLabel = "NAME",
                description = "With a controller: the site to move the data through (default: the image's home when it is up, else the first site up).")
        String site;

        @Option(names = "--progress", negatable = true,
                description = "Show bytes done, rate and time left on stderr (default: when stderr is a terminal).")
        Boolean progress;

        boolean showProgress() {
            return progress != null ? progress : Progress.stderrIsTerminal();
        }

        static ImageFormat format(String name) {
            return name == null ? null : ImageFormat.named(name);
        }

        /** The site of {@code --site}, or the one chosen: {@code home} when it is up, else the first site up. */
        Site siteOf(ClusterStatus cluster, String home) {
            return SiteChoice.choose(cluster, site, home);
        }

        /** Without a controller the data goes through the one site there is. */
        void checkNoSite(ImageClient standalone) {
            if (site != null) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "--site picks one of a controller's sites; this command talks to "
                        + standalone.target().describe() + " alone");
            }
        }
    }

    @Command(name = "import", mixinStandardHelpOptions = true,
            description = {"Create image NAME from FILE: raw, or qcow2 or another format qemu-img reads (qemu-img then does the reading).",
                    "The size is the file's for raw, else the size of the disk it holds, rounded up to 4096 bytes. Zero blocks are not sent.",
                    "If the import fails or is interrupted, the new image is removed."})
    static final class Import extends Transfer {
        @Parameters(index = "0", paramLabel = "FILE")
        Path file;

        @Parameters(index = "1", paramLabel = "NAME")
        String name;

        @Option(names = "--format", paramLabel = "FORMAT",
                description = "FILE's format: raw, qcow2, qed, vmdk, vdi, vhdx or vpc (default: detected from its first bytes).")
        String format;

        @Override
        void run(ImageClient standalone, PrintStream out) throws Exception {
            checkNoSite(standalone);
            ImageFormat known = format(format);
            report(ImageTransfer.importFile(TransferRoutes.standalone(standalone), file, name, known, showProgress()), out);
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) throws Exception {
            ImageFormat known = format(format);
            Site through = siteOf(catalog.clusterStatus(), "");
            report(ImageTransfer.importFile(TransferRoutes.controller(catalog, through), file, name, known, showProgress()), out);
        }

        private void report(ImageTransfer.Result result, PrintStream out) {
            out.println("imported " + file + " (" + result.format().qemuName() + ") as " + name + ": " + Sizes.format(result.sizeBytes())
                    + (result.dataBytes() < 0 ? "" : ", " + Sizes.format(result.dataBytes()) + " of data sent"));
        }
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = {"Write image NAME to FILE: raw, with the image's zero ranges as holes, or qcow2 or another format",
                    "qemu-img writes (qemu-img then does the writing). If the export fails or is interrupted, FILE is removed."})
    static final class Export extends Transfer {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Parameters(index = "1", paramLabel = "FILE")
        Path file;

        @Option(names = "--format", paramLabel = "FORMAT",
                description = "FILE's format: raw, qcow2, qed, vmdk, vdi, vhdx or vpc (default: by FILE's extension, .qcow2 and so on; raw otherwise).")
        String format;

        @Option(names = "--force", description = "Overwrite FILE if it exists.")
        boolean force;

        @Override
        void run(ImageClient standalone, PrintStream out) throws Exception {
            checkNoSite(standalone);
            ImageFormat known = format(format);
            report(ImageTransfer.exportImage(TransferRoutes.standalone(standalone, name), file, known, force, showProgress()), out);
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) throws Exception {
            ImageFormat known = format(format);
            ClusterStatus cluster = catalog.clusterStatus(name);
            Site through = siteOf(cluster, cluster.getImages(0).getStatus().getConfig().getHome());
            report(ImageTransfer.exportImage(TransferRoutes.at(through, name), file, known, force, showProgress()), out);
        }

        private void report(ImageTransfer.Result result, PrintStream out) {
            out.println("exported " + name + " to " + file + " (" + result.format().qemuName() + "): " + Sizes.format(result.sizeBytes())
                    + (result.dataBytes() < 0 ? "" : ", " + Sizes.format(result.dataBytes()) + " of data written"));
        }
    }
}
