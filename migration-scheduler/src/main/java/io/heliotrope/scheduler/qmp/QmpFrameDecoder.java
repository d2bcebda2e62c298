package io.heliotrope.scheduler.qmp;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Splits the bytes QEMU sends into messages: one JSON object a line, ended by CRLF. Keeps a
 * partial line between reads; a line longer than {@link #MAX_LINE} bytes fails rather than
 * growing without bound. Not thread-safe: one per connection, used by its reader.
 */
public final class QmpFrameDecoder {
    /** query-migrate's reply, the largest we read, is under 2 KiB. */
    public static final int MAX_LINE = 1 << 20;

    private final QmpCodec codec;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    public QmpFrameDecoder(QmpCodec codec) {
        this.codec = requireNonNull(codec, "codec is null");
    }

    /** Consumes every byte of {@code input}; returns the messages its complete lines hold. */
    public List<QmpMessage> decode(ByteBuffer input) {
        List<QmpMessage> messages = new ArrayList<>();
        while (input.hasRemaining()) {
            byte b = input.get();
            if (b != '\n') {
                if (line.size() == MAX_LINE) {
                    throw new IllegalArgumentException("a QMP message longer than " + MAX_LINE + " bytes");
                }
                line.write(b);
                continue;
            }
            String text = line.toString(StandardCharsets.UTF_8).strip();
            line.reset();
            if (!text.isEmpty()) {
                messages.add(codec.decode(text));
            }
        }
        return messages;
    }
}
