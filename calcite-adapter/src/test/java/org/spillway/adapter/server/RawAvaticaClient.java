package org.spillway.adapter.server;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.apache.calcite.avatica.remote.Driver.Serialization;
import org.apache.calcite.avatica.remote.JsonService;
import org.apache.calcite.avatica.remote.ProtobufTranslationImpl;
import org.apache.calcite.avatica.remote.Service;

/**
 * Sends hand-made Avatica requests over plain HTTP, as an attacker would: any connection and statement
 * ids, in either wire format, with the given user's BASIC credentials. Bodies are encoded and decoded
 * with Avatica's own translation so that only the ids are crafted.
 */
final class RawAvaticaClient {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private final URI uri;
  private final Serialization serialization;
  private final String authorization;

  RawAvaticaClient(SpillwayServer server, String user, String password) {
    this.uri = URI.create(server.httpUrl() + "/");
    this.serialization = server.config().serialization();
    this.authorization = "Basic " + Base64.getEncoder()
        .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /** Sends {@code request}; returns the decoded response, an ErrorResponse when the server refused. */
  Service.Response send(Service.Request request) throws IOException, InterruptedException {
    final HttpRequest.Builder http = HttpRequest.newBuilder(uri)
        .timeout(Duration.ofSeconds(30))
        .header("Authorization", authorization);
    if (serialization == Serialization.JSON) {
      final HttpResponse<String> response = HTTP.send(
          http.POST(HttpRequest.BodyPublishers.ofString(JsonService.MAPPER.writeValueAsString(request)))
              .build(), HttpResponse.BodyHandlers.ofString());
      return JsonService.MAPPER.readValue(response.body(), Service.Response.class);
    }
    final ProtobufTranslationImpl translation = new ProtobufTranslationImpl();
    final HttpResponse<byte[]> response = HTTP.send(
        http.POST(HttpRequest.BodyPublishers.ofByteArray(translation.serializeRequest(request)))
            .build(), HttpResponse.BodyHandlers.ofByteArray());
    return translation.parseResponse(response.body());
  }
}
