package org.spillway.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8 decoding for CSV import. A leading byte order mark is skipped. Malformed bytes are reported
 * only after every character before them has been read (a JDK reader drops the characters decoded with
 * them), so the CSV reader's line count is the line that holds them.
 */
final class Utf8CsvReader extends Reader {
  private static final char BYTE_ORDER_MARK = '\uFEFF';

  /** Malformed UTF-8 at a byte offset of the file. */
  static final class InvalidUtf8Exception extends CharacterCodingException {
    private static final long serialVersionUID = 1L;
    private final long offset;

    InvalidUtf8Exception(long offset) {
      this.offset = offset;
    }

    long offset() {
      return offset;
    }

    @Override public String getMessage() {
      return "invalid UTF-8 at byte offset " + offset;
    }
  }

  private final InputStream in;
  private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
  /** Undecoded bytes, in read mode. */
  private final ByteBuffer bytes = ByteBuffer.allocate(1 << 16).flip();
  /** Decoded characters not yet read, in read mode; room for a surrogate pair whatever the caller asks. */
  private final CharBuffer chars = CharBuffer.allocate(1 << 14).flip();
  /** Bytes of the file before {@link #bytes}' position. */
  private long bytesBefore;
  private boolean endOfInput;
  private boolean finished;
  private boolean started;
  private InvalidUtf8Exception pending;

  Utf8CsvReader(InputStream in) {
    this.in = in;
  }

  @Override public int read(char[] target, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    while (!chars.hasRemaining()) {
      if (pending != null) {
        throw pending;
      }
      if (!decodeMore()) {
        return -1;
      }
    }
    int n = Math.min(length, chars.remaining());
    chars.get(target, offset, n);
    return n;
  }

  /** Refills {@link #chars} up to the next malformed bytes (then {@link #pending}); false at the end. */
  private boolean decodeMore() throws IOException {
    if (finished) {
      return false;
    }
    chars.clear();
    try {
      while (chars.position() == 0 && pending == null) {
        int before = bytes.position();
        CoderResult result = decoder.decode(bytes, chars, endOfInput);
        bytesBefore += bytes.position() - before;
        if (result.isError()) {
          pending = new InvalidUtf8Exception(bytesBefore);
        } else if (result.isUnderflow()) {
          if (endOfInput) {
            decoder.flush(chars);
            finished = true;
            break;
          }
          fill();
        }
      }
    } finally {
      chars.flip();
    }
    if (!started && chars.hasRemaining()) {
      started = true;
      if (chars.get(chars.position()) == BYTE_ORDER_MARK) {
        chars.get();
      }
    }
    return chars.hasRemaining() || pending != null || !finished;
  }

  private void fill() throws IOException {
    bytes.compact();
    int n = in.read(bytes.array(), bytes.position(), bytes.remaining());
    if (n < 0) {
      endOfInput = true;
    } else {
      bytes.position(bytes.position() + n);
    }
    bytes.flip();
  }

  @Override public void close() throws IOException {
    in.close();
  }
}
