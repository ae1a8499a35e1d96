package dev.once.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PackedTraceparentTest {
  static final String TP = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  @Test
  void aWellFormedTraceparentPacksInto26BytesAndBack() {
    byte[] packed = PackedTraceparent.pack(TP);
    assertThat(packed).hasSize(PackedTraceparent.LENGTH);
    assertThat(packed[0]).as("version").isZero();
    assertThat(packed[1]).as("first byte of the trace id").isEqualTo((byte) 0x0a);
    assertThat(packed[25]).as("flags").isEqualTo((byte) 0x01);
    assertThat(PackedTraceparent.unpack(packed)).isEqualTo(TP);
    String highBytes = "00-ffffffffffffffffffffffffffffff80-8000000000000001-ff";
    assertThat(PackedTraceparent.unpack(PackedTraceparent.pack(highBytes))).isEqualTo(highBytes);
  }

  @Test
  void anythingElseIsNotPackedAndStaysAHeader() {
    for (String tp :
        new String[] {
          null,
          "",
          TP.toUpperCase(java.util.Locale.ROOT),
          "01" + TP.substring(2), // a later version may carry more fields
          TP + "-extra",
          TP.replace('-', '_'),
          TP.substring(0, 54) + "g",
        }) {
      assertThat(dev.once.Tracing.isTraceparent(tp)).as(tp).isFalse();
      assertThat(PackedTraceparent.pack(tp)).as(tp).isNull();
    }
  }

  @Test
  void bytesItDidNotWriteComeBackAsHexNeverThrow() {
    assertThat(PackedTraceparent.unpack(new byte[] {1, 2, (byte) 0xff})).isEqualTo("0102ff");
    byte[] laterVersion = PackedTraceparent.pack(TP);
    laterVersion[0] = 1;
    assertThat(PackedTraceparent.unpack(laterVersion)).startsWith("01").hasSize(52);
    assertThat(dev.once.Tracing.isTraceparent(PackedTraceparent.unpack(new byte[0]))).isFalse();
  }
}
