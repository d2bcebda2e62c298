package io.heliotrope.cli.print;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;

import java.io.PrintStream;
import java.util.function.BiConsumer;

/**
 * What {@code --json} prints: one message of our gRPC API in protobuf's JSON mapping
 * (lowerCamelCase field names, 64-bit integers as strings, enums by name), every field
 * included, at its default value too, so that scripts find each field they look for.
 * The {@code .proto} files document the fields; new ones may appear, none go away.
 */
public final class Json {
    private static final JsonFormat.Printer PRINTER = JsonFormat.printer().includingDefaultValueFields();

    private Json() {}

    /** {@code message} as JSON when {@code json}, else as {@code forPeople} prints it. */
    public static <T extends MessageOrBuilder> void print(boolean json, T message, PrintStream out, BiConsumer<T, PrintStream> forPeople) {
        if (json) {
            print(message, out);
        } else {
            forPeople.accept(message, out);
        }
    }

    public static void print(MessageOrBuilder message, PrintStream out) {
        try {
            out.println(PRINTER.print(message));
        } catch (InvalidProtocolBufferException e) {
            // Only an Any field of an unknown type fails to print, and our messages have none.
            throw new IllegalStateException("cannot print " + message.getDescriptorForType().getFullName() + " as JSON", e);
        }
    }
}
