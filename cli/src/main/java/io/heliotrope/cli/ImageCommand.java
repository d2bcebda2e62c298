package io.heliotrope.cli;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageStatus;
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

        void run(CatalogClient catalog, PrintStream out) {
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

    @Command(name = "import", mixinStandardHelpOptions = true,
            description = {"Create image NAME from a raw FILE. Blocks of zeros are not sent (sparse).",
                    "The size is the file's, rounded up to 4096 bytes. If the import fails, the new image is removed."})
    static final class Import extends Subcommand {
        @Parameters(index = "0", paramLabel = "FILE")
        Path file;

        @Parameters(index = "1", paramLabel = "NAME")
        String name;

        @Override
        void run(ImageClient client, PrintStream out) throws Exception {
            ImageTransfer.Result result = ImageTransfer.importFile(client, file, name);
            out.println("imported " + file + " as " + name + ": " + format(result.sizeBytes()) + ", "
                    + format(result.dataBytes()) + " of data sent");
        }
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = "Write image NAME to a raw FILE; zero ranges stay holes in the file (sparse).")
    static final class Export extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Parameters(index = "1", paramLabel = "FILE")
        Path file;

        @Option(names = "--force", description = "Overwrite FILE if it exists.")
        boolean force;

        @Override
        void run(ImageClient client, PrintStream out) throws Exception {
            ImageTransfer.Result result = ImageTransfer.exportFile(client, name, file, force);
            out.println("exported " + name + " to " + file + ": " + format(result.sizeBytes()) + ", "
                    + format(result.dataBytes()) + " of data written");
        }
    }
}
