package io.heliotrope.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code NAME=SIZE}, as given to {@code --create-image}. */
record ImageSpec(String name, long sizeBytes) {
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
