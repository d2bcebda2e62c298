package io.heliotrope.cli;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.storage.v1.ImageInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;

import static io.heliotrope.cli.Sizes.format;

@Command(name = "image",
        mixinStandardHelpOptions = true,
        description = "Create, list, inspect, resize, remove, import and export images.",
        subcommands = {
                ImageCommand.Create.class,
                ImageCommand.List.class,
                ImageCommand.Show.class,
                ImageCommand.Set.class,
                ImageCommand.Remove.class,
                ImageCommand.Resize.class,
                ImageCommand.Import.class,
                ImageCommand.Export.class})
final class ImageCommand {
    @Option(names = "--server", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:7410", scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "The site's gRPC address (default: ${DEFAULT-VALUE}).")
    String server;

    @Option(names = "--controller", paramLabel = "HOST:PORT", scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "Use the catalog of the controller there instead of a site's (create, ls, show, set, rm).")
    String controller;

    /** A subcommand that talks to the site named by {@code --server}, or to the controller named by {@code --controller}. */
    abstract static class Subcommand implements Callable<Integer> {
        @ParentCommand
        ImageCommand parent;

        @Override
        public Integer call() throws Exception {
            if (parent.controller != null) {
                try (CatalogClient catalog = new CatalogClient(parent.controller)) {
                    run(catalog, System.out);
                }
                return 0;
            }
            try (ImageClient client = new ImageClient(parent.server)) {
                run(client, System.out);
            }
            return 0;
        }

        abstract void run(ImageClient client, PrintStream out) throws Exception;

        void run(CatalogClient catalog, PrintStream out) throws Exception {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "'image " + getClass().getAnnotation(Command.class).name() + "' moves data through a site: use --server SITE, not --controller");
        }
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
        void run(ImageClient client, PrintStream out) {
            replication.requireNone("image create");
            ImageInfo image = client.create(name, size);
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
        void run(ImageClient client, PrintStream out) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "'image set': replication settings live in the controller's catalog: "
                    + "add --controller HOST:PORT");
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

    @Command(name = "ls", mixinStandardHelpOptions = true, description = "List images.")
    static final class List extends Subcommand {
        @Override
        void run(ImageClient client, PrintStream out) {
            java.util.List<ImageInfo> images = client.list();
            out.printf("%-32s %12s %12s  %s%n", "NAME", "SIZE", "ALLOCATED", "CREATED");
            for (ImageInfo image : images) {
                out.printf("%-32s %12s %12s  %s%n", image.getName(), format(image.getSizeBytes()),
                        format(image.getAllocatedBlocks() * image.getBlockSize()), Instant.ofEpochMilli(image.getCreatedEpochMillis()));
            }
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) {
            out.printf("%-32s %12s %-10s  %s%n", "NAME", "SIZE", "MODE", "CREATED");
            for (ImageConfig image : catalog.list()) {
                out.printf("%-32s %12s %-10s  %s%n", image.getName(), format(image.getSizeBytes()), ReplicationOptions.mode(image),
                        Instant.ofEpochMilli(image.getCreatedEpochMillis()));
            }
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Show one image.")
    static final class Show extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        void run(ImageClient client, PrintStream out) {
            ImageInfo image = client.get(name);
            out.println("name:        " + image.getName());
            out.println("size:        " + image.getSizeBytes() + " (" + format(image.getSizeBytes()) + ")");
            out.println("block size:  " + image.getBlockSize());
            out.println("created:     " + Instant.ofEpochMilli(image.getCreatedEpochMillis()));
            out.println("data blocks: " + image.getAllocatedBlocks() + " (" + format(image.getAllocatedBlocks() * image.getBlockSize()) + ")");
            out.println("zero blocks: " + image.getZeroBlocks());
            if (image.getViewMetaSeq() > 0 || image.getStaleBlocksCount() > 0) {
                out.println("view:        metaSeq " + image.getViewMetaSeq());
                for (io.heliotrope.proto.storage.v1.StaleBlocks stale : image.getStaleBlocksList()) {
                    out.println("stale:       " + stale.getBlocks() + " blocks"
                            + (stale.getHolder().isEmpty() ? " (current version is zero or never written)" : " current at site " + stale.getHolder()));
                }
            }
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) {
            ImageShow.print(catalog.get(name), out);
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true, description = "Remove an image and its data. Refused while it is attached.")
    static final class Remove extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        void run(ImageClient client, PrintStream out) {
            client.delete(name);
            out.println("removed " + name);
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) {
            catalog.delete(name);
            out.println("removed " + name);
        }
    }

    @Command(name = "resize", mixinStandardHelpOptions = true, description = "Grow or shrink an image. Shrinking drops the data past the new end. Refused while attached.")
    static final class Resize extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--size", required = true, paramLabel = "SIZE", converter = Sizes.class, description = "New size, a multiple of 4096 bytes.")
        long size;

        @Override
        void run(ImageClient client, PrintStream out) {
            ImageInfo image = client.resize(name, size);
            out.println("resized " + image.getName() + " to " + format(image.getSizeBytes()));
        }
    }

    /** What import and export share: the format, progress, and under a controller the site the data goes through. */
    abstract static class Transfer extends Subcommand {
        @Option(names = "--site", paramLabel = "NAME",
                description = "With a controller: the site to move the data through (default: the image's home, else the first site).")
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

        /** The site of {@code --site}, else {@code home} when it is registered, else the first site. */
        Site site(CatalogClient catalog, String home) {
            java.util.List<Site> sites = catalog.sites();
            String wanted = site != null ? site : home;
            for (Site registered : sites) {
                if (registered.getName().equals(wanted)) {
                    return registered;
                }
            }
            if (site != null) {
                throw new HeliotropeException(ErrorCode.SITE_NOT_FOUND, "site '" + site + "' is not registered with the controller");
            }
            if (sites.isEmpty()) {
                throw new HeliotropeException(ErrorCode.SITE_NOT_FOUND, "the controller has no sites to move data through");
            }
            return sites.get(0);
        }

        void checkNoSite() {
            if (site != null) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "--site picks one of a controller's sites; without --controller there is one site");
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
        void run(ImageClient client, PrintStream out) throws Exception {
            checkNoSite();
            ImageFormat known = format(format);
            report(ImageTransfer.importFile(TransferRoutes.standalone(client, parent.server), file, name, known, showProgress()), out);
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) throws Exception {
            ImageFormat known = format(format);
            report(ImageTransfer.importFile(TransferRoutes.controller(catalog, site(catalog, "")), file, name, known, showProgress()), out);
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
        void run(ImageClient client, PrintStream out) throws Exception {
            checkNoSite();
            ImageFormat known = format(format);
            report(ImageTransfer.exportImage(TransferRoutes.standalone(client, parent.server, name), file, known, force, showProgress()), out);
        }

        @Override
        void run(CatalogClient catalog, PrintStream out) throws Exception {
            ImageFormat known = format(format);
            String home = catalog.get(name).getConfig().getHome();
            report(ImageTransfer.exportImage(TransferRoutes.at(site(catalog, home), name), file, known, force, showProgress()), out);
        }

        private void report(ImageTransfer.Result result, PrintStream out) {
            out.println("exported " + name + " to " + file + " (" + result.format().qemuName() + "): " + Sizes.format(result.sizeBytes())
                    + (result.dataBytes() < 0 ? "" : ", " + Sizes.format(result.dataBytes()) + " of data written"));
        }
    }
}
