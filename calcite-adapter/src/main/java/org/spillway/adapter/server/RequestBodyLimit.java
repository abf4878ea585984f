package org.spillway.adapter.server;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import javax.servlet.ReadListener;
import javax.servlet.ServletException;
import javax.servlet.ServletInputStream;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletRequestWrapper;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.HandlerWrapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses request bodies larger than a limit with 413 Payload Too Large, before authentication and
 * before Avatica reads the body into memory.
 *
 * <p>A declared {@code Content-Length} over the limit is refused without reading a byte. A body of
 * unknown length (chunked) is read up to one byte past the limit; if it ends in time it is handed on
 * from memory, which costs nothing extra because Avatica buffers every request body anyway.
 */
final class RequestBodyLimit extends HandlerWrapper {
  private static final Logger LOG = LoggerFactory.getLogger(RequestBodyLimit.class);

  private final long maxBytes;

  RequestBodyLimit(long maxBytes) {
    if (maxBytes < 1) {
      throw new IllegalArgumentException("request body limit must be >= 1 byte, got " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  long maxBytes() {
    return maxBytes;
  }

  @Override
  public void handle(String target, Request baseRequest, HttpServletRequest request,
      HttpServletResponse response) throws IOException, ServletException {
    final long declared = request.getContentLengthLong();
    if (declared > maxBytes) {
      refuse(baseRequest, request, response, declared + " bytes declared");
      return;
    }
    if (declared >= 0) {
      super.handle(target, baseRequest, request, response);
      return;
    }
    final byte[] body =
        request.getInputStream().readNBytes((int) Math.min(maxBytes + 1, Integer.MAX_VALUE - 8));
    if (body.length > maxBytes) {
      refuse(baseRequest, request, response, "more than " + maxBytes + " bytes sent (chunked)");
      return;
    }
    super.handle(target, baseRequest, new BufferedBody(request, body), response);
  }

  private void refuse(Request baseRequest, HttpServletRequest request,
      HttpServletResponse response, String what) throws IOException {
    LOG.warn("refused a request body from {}: {}, over the limit of {} bytes (--max-request-size)",
        request.getRemoteAddr(), what, maxBytes);
    // The unread rest of the body is not worth draining: close the connection after the answer.
    response.setHeader("Connection", "close");
    response.sendError(HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE,
        "Request body larger than the server's limit of " + maxBytes + " bytes");
    baseRequest.setHandled(true);
  }

  /** The request with its body, already read, served from memory. */
  private static final class BufferedBody extends HttpServletRequestWrapper {
    private final byte[] body;

    BufferedBody(HttpServletRequest request, byte[] body) {
      super(request);
      this.body = body;
    }

    @Override
    public int getContentLength() {
      return body.length;
    }

    @Override
    public long getContentLengthLong() {
      return body.length;
    }

    @Override
    public ServletInputStream getInputStream() {
      final ByteArrayInputStream in = new ByteArrayInputStream(body);
      return new ServletInputStream() {
        @Override
        public int read() throws IOException {
          return in.read();
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
          return in.read(buffer, offset, length);
        }

        @Override
        public boolean isFinished() {
          return in.available() == 0;
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
          throw new UnsupportedOperationException("the body is already in memory");
        }
      };
    }
  }
}
