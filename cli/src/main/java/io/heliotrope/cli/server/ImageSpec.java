package io.heliotrope.cli.server;

import io.heliotrope.cli.print.Sizes;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.util.List;
import java.util.function.BiConsumer;

/** {@code NAME=SIZE}, as given to {@code --create-image}. */
public record ImageSpec(String name, long sizeBytes) {
    /** Creates each image that does not exist yet; existing ones are left as they are. */
    public static void createMissing(List<ImageSpec> images, BiConsumer<String, Long> create) {
        for (ImageSpec image : images) {
            try {
                create.accept(image.name(), image.sizeBytes());
            } catch (HeliotropeException e) {
                if (e.code() != ErrorCode.IMAGE_EXISTS) {
                    throw e;
                }
            }
        }
    }

    static final class Converter implements ITypeConverter<ImageSpec> {
        @Override
        public ImageSpec convert(String value) {
            int equals = value.indexOf('=');
            if (equals <= 0) {
                throw new TypeConversionException("invalid image '" + value + "': use NAME=SIZE, for example vm1=10G");
            }
            return new ImageSpec(value.substring(0, equals), Sizes.parse(value.substring(equals + 1)));
        }
    }
}
