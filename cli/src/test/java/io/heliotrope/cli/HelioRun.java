package io.heliotrope.cli;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;

import static java.nio.charset.StandardCharsets.UTF_8;

/** One {@code helio} command run in this JVM: its exit code, and what it printed to stdout and stderr. */
record HelioRun(int exitCode, String stdout, String stderr) {
    static HelioRun of(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        CommandLine helio = Helio.commandLine();
        helio.setErr(new PrintWriter(err));
        PrintStream saved = System.out;
        System.setOut(new PrintStream(out, true, UTF_8));
        try {
            int code = helio.execute(args);
            return new HelioRun(code, out.toString(UTF_8), err.toString().replace(System.lineSeparator(), "\n"));
        } finally {
            System.setOut(saved);
        }
    }

    /** What the command printed, read back as JSON into {@code builder}'s message. */
    Message json(Message.Builder builder) {
        try {
            JsonFormat.parser().merge(stdout, builder);
            return builder.build();
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError("not the JSON of " + builder.getDescriptorForType().getFullName() + ": " + this, e);
        }
    }
}
