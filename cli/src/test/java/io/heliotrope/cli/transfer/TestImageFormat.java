package io.heliotrope.cli.transfer;

import io.heliotrope.error.HeliotropeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestImageFormat {
    @Test
    void detectsEachFormatByItsMagic() {
        assertThat(ImageFormat.detect(head("QFI\u00fb\0\0\0\3"))).isEqualTo(ImageFormat.QCOW2);
        assertThat(ImageFormat.detect(head("QED\0"))).isEqualTo(ImageFormat.QED);
        assertThat(ImageFormat.detect(head("KDMV"))).isEqualTo(ImageFormat.VMDK);
        assertThat(ImageFormat.detect(head("# Disk DescriptorFile\nversion=1\n"))).isEqualTo(ImageFormat.VMDK);
        assertThat(ImageFormat.detect(head("vhdxfile"))).isEqualTo(ImageFormat.VHDX);
        assertThat(ImageFormat.detect(head("conectix"))).isEqualTo(ImageFormat.VPC);
        byte[] vdi = head("<<< Oracle VM VirtualBox Disk Image >>>\n");
        ByteBuffer.wrap(vdi, 0x40, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(0xbeda107f);
        assertThat(ImageFormat.detect(vdi)).isEqualTo(ImageFormat.VDI);
    }

    @Test
    void anythingElseIsRaw() {
        assertThat(ImageFormat.detect(new byte[512])).isEqualTo(ImageFormat.RAW);
        assertThat(ImageFormat.detect(head("QFI"))).as("a magic cut short").isEqualTo(ImageFormat.RAW);
        assertThat(ImageFormat.detect(new byte[0])).as("an empty file").isEqualTo(ImageFormat.RAW);
        assertThat(ImageFormat.detect(head("xQFI\u00fb"))).as("a magic not at the start").isEqualTo(ImageFormat.RAW);
    }

    @Test
    void detectsAFileQemuImgMade(@TempDir Path tmp) throws Exception {
        Path qcow2 = tmp.resolve("disk");
        Files.write(qcow2, head("QFI\u00fb\0\0\0\3"));
        Path raw = tmp.resolve("disk.qcow2");
        Files.write(raw, new byte[100]);

        assertThat(ImageFormat.detect(qcow2)).as("the bytes decide, not the name").isEqualTo(ImageFormat.QCOW2);
        assertThat(ImageFormat.detect(raw)).isEqualTo(ImageFormat.RAW);
    }

    @Test
    void namedByQemuImgsNamesInAnyCase() {
        assertThat(ImageFormat.named("qcow2")).isEqualTo(ImageFormat.QCOW2);
        assertThat(ImageFormat.named("RAW")).isEqualTo(ImageFormat.RAW);
        assertThat(ImageFormat.named("vpc")).isEqualTo(ImageFormat.VPC);
        assertThatThrownBy(() -> ImageFormat.named("qcow3"))
                .isInstanceOf(HeliotropeException.class)
                .hasMessage("unknown image format 'qcow3' (known: raw, qcow2, qed, vmdk, vdi, vhdx, vpc)");
    }

    @Test
    void exportFormatFollowsTheExtensionElseRaw() {
        assertThat(ImageFormat.ofFileName(Path.of("/tmp/vm1.qcow2"))).isEqualTo(ImageFormat.QCOW2);
        assertThat(ImageFormat.ofFileName(Path.of("vm1.QCOW2"))).isEqualTo(ImageFormat.QCOW2);
        assertThat(ImageFormat.ofFileName(Path.of("vm1.vhd"))).isEqualTo(ImageFormat.VPC);
        assertThat(ImageFormat.ofFileName(Path.of("vm1.vmdk"))).isEqualTo(ImageFormat.VMDK);
        assertThat(ImageFormat.ofFileName(Path.of("vm1.img"))).isEqualTo(ImageFormat.RAW);
        assertThat(ImageFormat.ofFileName(Path.of("vm1"))).isEqualTo(ImageFormat.RAW);
        assertThat(ImageFormat.ofFileName(Path.of("vm1.qcow2.bak"))).isEqualTo(ImageFormat.RAW);
    }

    private static byte[] head(String start) {
        return Arrays.copyOf(start.getBytes(StandardCharsets.ISO_8859_1), 512);
    }
}
