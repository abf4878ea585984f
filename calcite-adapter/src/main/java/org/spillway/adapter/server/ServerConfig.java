package org.spillway.adapter.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.calcite.avatica.remote.Driver.Serialization;

/**
 * Everything a {@link SpillwayServer} needs to start; immutable, with defaults that are safe to expose.
 *
 * @param dataDir Spillway catalog directory served to every client
 * @param host address to bind; 127.0.0.1 unless the operator opts into more
 * @param port TCP port; 0 picks a free one
 * @param serialization wire format Avatica clients must match
 * @param usersFile Jetty realm file enabling BASIC authentication, or null for none
 * @param allowWrites whether statements other than queries and metadata are executed
 * @param maxConcurrent statements that may do work at the same time
 * @param admissionWait how long an excess statement waits for a slot before it is refused
 * @param queryTimeout per-statement time limit, {@link Duration#ZERO} for none
 * @param connectionProperties Spillway connection properties of every served connection (e.g. gpuCache)
 * @param allowAnonymous whether a non-loopback host may be served without a users file
 * @param maxRequestBytes largest HTTP request body accepted; larger ones get 413
 */
public record ServerConfig(Path dataDir, String host, int port, Serialization serialization,
    Path usersFile, boolean allowWrites, int maxConcurrent, Duration admissionWait,
    Duration queryTimeout, Map<String, String> connectionProperties, boolean allowAnonymous,
    long maxRequestBytes) {

  public static final String DEFAULT_HOST = "127.0.0.1";
  public static final int DEFAULT_PORT = 8765;
  public static final int DEFAULT_MAX_CONCURRENT = 16;
  public static final Duration DEFAULT_ADMISSION_WAIT = Duration.ofSeconds(30);
  /** Avatica requests are SQL text and parameter batches; 16 MiB leaves room for large batches. */
  public static final long DEFAULT_MAX_REQUEST_BYTES = 16L << 20;

  public ServerConfig {
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(serialization, "serialization");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 0..65535, got " + port);
    }
    if (maxConcurrent < 1) {
      throw new IllegalArgumentException("max concurrent statements must be >= 1, got " + maxConcurrent);
    }
    if (admissionWait.isNegative()) {
      throw new IllegalArgumentException("admission wait must not be negative, got " + admissionWait);
    }
    if (queryTimeout.isNegative()) {
      throw new IllegalArgumentException("query timeout must not be negative, got " + queryTimeout);
    }
    if (maxRequestBytes < 1) {
      throw new IllegalArgumentException("request size limit must be >= 1 byte, got " + maxRequestBytes);
    }
    connectionProperties = Map.copyOf(connectionProperties);
    if (connectionProperties.containsKey("dataDir")) {
      throw new IllegalArgumentException("the data directory is the server's dataDir, not a connection property");
    }
  }

  /** Defaults: loopback, port 8765, protobuf, no authentication, read-only, 16 statements, no timeout. */
  public static ServerConfig of(Path dataDir) {
    return new ServerConfig(dataDir, DEFAULT_HOST, DEFAULT_PORT, Serialization.PROTOBUF, null, false,
        DEFAULT_MAX_CONCURRENT, DEFAULT_ADMISSION_WAIT, Duration.ZERO, Map.of(), false,
        DEFAULT_MAX_REQUEST_BYTES);
  }

  public ServerConfig withHost(String newHost) {
    return new ServerConfig(dataDir, newHost, port, serialization, usersFile, allowWrites,
        maxConcurrent, admissionWait, queryTimeout, connectionProperties,
        allowAnonymous, maxRequestBytes);
  }

  public ServerConfig withPort(int newPort) {
    return new ServerConfig(dataDir, host, newPort, serialization, usersFile, allowWrites,
        maxConcurrent, admissionWait, queryTimeout, connectionProperties,
        allowAnonymous, maxRequestBytes);
  }

  public ServerConfig withSerialization(Serialization newSerialization) {
    return new ServerConfig(dataDir, host, port, newSerialization, usersFile, allowWrites,
        maxConcurrent, admissionWait, queryTimeout, connectionProperties,
        allowAnonymous, maxRequestBytes);
  }

  public ServerConfig withUsersFile(Path newUsersFile) {
    return new ServerConfig(dataDir, host, port, serialization, newUsersFile, allowWrites,
        maxConcurrent, admissionWait, queryTimeout, connectionProperties,
        allowAnonymous, maxRequestBytes);
  }

  public ServerConfig withAllowWrites(boolean newAllowWrites) {
    return new ServerConfig(dataDir, host, port, serialization, usersFile, newAllowWrites,
        maxConcurrent, admissionWait, queryTimeout, connectionProperties,
        allowAnonymous, maxRequestBytes);
  }

  public ServerConfig withAdmission(int newMaxConcurrent, Duration newAdmissionWait) {
    return new ServerConfig(dataDir, host, port, serialization, usersFile, allowWrites,
        newMaxConcurrent, newAdmissionWait, queryTimeout, connectionProperties,
        allowAnonymous, maxRequestBytes);
  }

  /** This configuration with one more connection property for the served connections. */
  public ServerConfig withConnectionProperty(String key, String value) {
    Map<String, String> properties = new TreeMap<>(connectionProperties);
    properties.put(key, value);
    return new ServerConfig(dataDir, host, port, serialization, usersFile, allowWrites,
        maxConcurrent, admissionWait, queryTimeout, properties,
        allowAnonymous, maxRequestBytes);
  }

  public ServerConfig withQueryTimeout(Duration newQueryTimeout) {
    return new ServerConfig(dataDir, host, port, serialization, usersFile, allowWrites,
        maxConcurrent, admissionWait, newQueryTimeout, connectionProperties,
        allowAnonymous, maxRequestBytes);
  }

  /** This configuration, allowing (or not) a non-loopback host without a users file. */
  public ServerConfig withAllowAnonymous(boolean newAllowAnonymous) {
    return new ServerConfig(dataDir, host, port, serialization, usersFile, allowWrites,
        maxConcurrent, admissionWait, queryTimeout, connectionProperties, newAllowAnonymous,
        maxRequestBytes);
  }

  public ServerConfig withMaxRequestBytes(long newMaxRequestBytes) {
    return new ServerConfig(dataDir, host, port, serialization, usersFile, allowWrites,
        maxConcurrent, admissionWait, queryTimeout, connectionProperties, allowAnonymous,
        newMaxRequestBytes);
  }
}
