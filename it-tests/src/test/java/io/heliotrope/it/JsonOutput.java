package io.heliotrope.it;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;

/** What {@code helio ... --json} printed, read back as the message it is. */
final class JsonOutput {
    private JsonOutput() {}

    /** The stdout of a command that must have succeeded, parsed into {@code builder}'s message. */
    @SuppressWarnings("unchecked")
    static <T extends Message> T parse(Tools.Result result, Message.Builder builder) {
        result.assertSuccess();
        try {
            JsonFormat.parser().merge(result.stdout(), builder);
            return (T) builder.build();
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError("not the JSON of " + builder.getDescriptorForType().getFullName() + ": " + result, e);
        }
    }
}
