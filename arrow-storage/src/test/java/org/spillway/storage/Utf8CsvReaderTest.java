package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Utf8CsvReaderTest {
  private static Reader reader(byte[] bytes) {
    return new Utf8CsvReader(new ByteArrayInputStream(bytes));
  }

  /** Reads one character at a time, so that the text before an error is observable. */
  private static String readUntilError(Reader in, StringBuilder text) throws IOException {
    char[] one = new char[1];
    while (in.read(one, 0, 1) == 1) {
      text.append(one[0]);
    }
    return text.toString();
  }

  @Test void skipsALeadingByteOrderMarkOnly() throws IOException {
    byte[] bytes = "\uFEFFa,b\n\uFEFF".getBytes(StandardCharsets.UTF_8);
    assertEquals("a,b\n\uFEFF", readUntilError(reader(bytes), new StringBuilder()));
    assertEquals("", readUntilError(reader("\uFEFF".getBytes(StandardCharsets.UTF_8)), new StringBuilder()));
  }

  @Test void deliversEveryCharacterBeforeMalformedBytesThenReportsTheirOffset() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    // multi-byte characters straddle the 64 KiB input buffer; the bad byte lies beyond it
    String good = "é€😀x\n".repeat(10_000);
    out.writeBytes(good.getBytes(StandardCharsets.UTF_8));
    out.write(0xC3);  // a lead byte without its continuation
    out.writeBytes("(\n".getBytes(StandardCharsets.UTF_8));
    StringBuilder text = new StringBuilder();
    Utf8CsvReader.InvalidUtf8Exception e = assertThrows(Utf8CsvReader.InvalidUtf8Exception.class,
        () -> readUntilError(reader(out.toByteArray()), text));
    assertEquals(good, text.toString());
    assertEquals(good.getBytes(StandardCharsets.UTF_8).length, e.offset());
    assertEquals("invalid UTF-8 at byte offset " + e.offset(), e.getMessage());
  }

  @Test void aTruncatedCharacterAtTheEndIsInvalid() {
    byte[] bytes = {'a', (byte) 0xE2, (byte) 0x82};
    assertThrows(Utf8CsvReader.InvalidUtf8Exception.class, () -> readUntilError(reader(bytes), new StringBuilder()));
  }
}
