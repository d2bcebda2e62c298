package io.heliotrope.cli.transfer;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The disk image formats an import reads and an export writes, by qemu-img's names.
 * Raw is ours to copy; the others go through qemu-img.
 */
public enum ImageFormat {
    RAW("raw", "raw", "img", "bin", "iso"),
    QCOW2("qcow2", "qcow2"),
    QED("qed", "qed"),
    VMDK("vmdk", "vmdk"),
    VDI("vdi", "vdi"),
    VHDX("vhdx", "vhdx"),
    VPC("vpc", "vhd", "vpc");

    /** Bytes {@link #detect} reads: the furthest magic (VDI's) ends at 0x44. */
    private static final int PROBE_BYTES = 512;
    private static final byte[] QCOW_MAGIC = {'Q', 'F', 'I', (byte) 0xfb};
    private static final int VDI_SIGNATURE = 0xbeda107f;

    private final String qemuName;
    private final String[] extensions;

    ImageFormat(String qemuName, String... extensions) {
        this.qemuName = qemuName;
        this.extensions = extensions;
    }

    public String qemuName() {
        return qemuName;
    }

    /** The format named {@code name} (qemu-img's name, any case); a user error names the known ones. */
    public static ImageFormat named(String name) {
        for (ImageFormat format : values()) {
            if (format.qemuName.equalsIgnoreCase(name)) {
                return format;
            }
        }
        throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "unknown image format '" + name + "' (known: " + known() + ")");
    }

    static String known() {
        return Arrays.stream(values()).map(ImageFormat::qemuName).collect(Collectors.joining(", "));
    }

    /** The format an export writes to {@code file} unless told: by its extension, raw when it has none we know. */
    static ImageFormat ofFileName(Path file) {
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String extension = dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
        for (ImageFormat format : values()) {
            if (Arrays.asList(format.extensions).contains(extension)) {
                return format;
            }
        }
        return RAW;
    }

    /** The format of {@code file} by its first bytes, as qemu-img probes it; raw when no other format's magic is there. */
    static ImageFormat detect(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return detect(in.readNBytes(PROBE_BYTES));
        }
    }

    static ImageFormat detect(byte[] head) {
        if (startsWith(head, QCOW_MAGIC)) {
            return QCOW2;
        }
        if (startsWith(head, "QED\0")) {
            return QED;
        }
        if (startsWith(head, "KDMV") || startsWith(head, "COWD") || startsWith(head, "# Disk DescriptorFile")) {
            return VMDK;
        }
        if (head.length >= 0x44 && ByteBuffer.wrap(head, 0x40, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() == VDI_SIGNATURE) {
            return VDI;
        }
        if (startsWith(head, "vhdxfile")) {
            return VHDX;
        }
        if (startsWith(head, "conectix")) {
            return VPC;
        }
        return RAW;
    }

    private static boolean startsWith(byte[] head, String magic) {
        return startsWith(head, magic.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static boolean startsWith(byte[] head, byte[] magic) {
        return head.length >= magic.length && Arrays.equals(head, 0, magic.length, magic, 0, magic.length);
    }
}
