package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.apache.calcite.avatica.remote.ProtobufTranslationImpl;
import org.apache.calcite.avatica.remote.Service;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue #12 item 14 over real HTTP: malformed credentials and oversized bodies, before any login. */
class HttpHardeningTest {
  private static final int LIMIT = 64 * 1024;
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @TempDir
  static Path dir;

  private static SpillwayServer server;

  @BeforeAll
  static void startServer() throws Exception {
    final Path users = Files.writeString(dir.resolve("users"), "alice: wonderland\n");
    server = SpillwayServer.start(ServerConfig.of(TpchTestData.dataDir()).withPort(0)
        .withUsersFile(users).withMaxRequestBytes(LIMIT));
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  private static HttpResponse<String> post(String authorization, HttpRequest.BodyPublisher body)
      throws Exception {
    final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.httpUrl() + "/"))
        .timeout(Duration.ofSeconds(30)).POST(body);
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String basic(String credentials) {
    return "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void malformedBasicHeaderGets400WithoutAStackTrace() throws Exception {
    final HttpResponse<String> response =
        post("Basic !!!", HttpRequest.BodyPublishers.ofString("x"));
    assertEquals(400, response.statusCode(), response.body());
    assertNoTrace(response.body());
    // Well-formed Base64 without a ':' is a failed login, not a server error.
    final HttpResponse<String> noColon =
        post("Basic " + Base64.getEncoder().encodeToString("alice".getBytes(StandardCharsets.UTF_8)),
            HttpRequest.BodyPublishers.ofString("x"));
    assertEquals(401, noColon.statusCode(), noColon.body());
    assertNoTrace(noColon.body());
  }

  @Test
  void failedLoginsAreLoggedWithTheClientAddress() throws Exception {
    final String log = stderrOf(() -> {
      assertEquals(401, post(basic("alice:rabbit"), HttpRequest.BodyPublishers.ofString("x"))
          .statusCode());
      assertEquals(400, post("Basic !!!", HttpRequest.BodyPublishers.ofString("x")).statusCode());
    });
    assertTrue(log.contains("failed login from 127.0.0.1:") && log.contains("user 'alice'"), log);
    assertTrue(log.contains("malformed Authorization header"), log);
    assertFalse(log.contains("rabbit"), "passwords never reach the log: " + log);
  }

  /** The declared length alone is refused: the server answers after 1 KiB of a 50 MB body. */
  @Test
  void oversizedDeclaredBodyIsRefusedWithoutBeingRead() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout(10_000);
      final OutputStream out = socket.getOutputStream();
      out.write(("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
          + "Content-Length: " + (50L << 20) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(new byte[1024]);
      out.flush();
      final String status = new String(socket.getInputStream().readNBytes(12),
          StandardCharsets.US_ASCII);
      assertEquals("HTTP/1.1 413", status);
    }
  }

  @Test
  void oversizedChunkedBodyIsRefused() throws Exception {
    final HttpResponse<String> response = post(basic("alice:wonderland"),
        HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(new byte[LIMIT + 1])));
    assertEquals(413, response.statusCode(), response.body());
    assertNoTrace(response.body());
  }

  /** A chunked body under the limit is read by the limit and still reaches Avatica whole. */
  @Test
  void chunkedBodyUnderTheLimitIsServed() throws Exception {
    final ProtobufTranslationImpl translation = new ProtobufTranslationImpl();
    final String connectionId = UUID.randomUUID().toString();
    final byte[] open =
        translation.serializeRequest(new Service.OpenConnectionRequest(connectionId, Map.of()));
    final HttpRequest request = HttpRequest.newBuilder(URI.create(server.httpUrl() + "/"))
        .header("Authorization", basic("alice:wonderland"))
        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(open)))
        .build();
    final HttpResponse<byte[]> response = HTTP.send(request, HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(200, response.statusCode());
    assertInstanceOf(Service.OpenConnectionResponse.class, translation.parseResponse(response.body()));
    server.meta().closeConnection(new org.apache.calcite.avatica.Meta.ConnectionHandle(connectionId));
  }

  private static void assertNoTrace(String body) {
    assertFalse(body.contains("Exception") || body.contains("\tat ") || body.contains("at org."),
        "no stack trace may reach the client: " + body);
  }

  private interface Action {
    void run() throws Exception;
  }

  /** What the server logs (slf4j-simple writes to the current System.err) while {@code action} runs. */
  private static String stderrOf(Action action) throws Exception {
    final PrintStream original = System.err;
    final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }
}
