package org.spillway.adapter.server;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code spillway users} subcommand: maintains the users file of {@code spillway server --users}. */
@Command(name = "users", mixinStandardHelpOptions = true,
    description = "Maintain the users file of 'spillway server --users'.",
    subcommands = {UsersCommand.Add.class})
public final class UsersCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "Missing subcommand: users add");
  }

  /** {@code spillway users add}: stores a salted hash of a password read from the terminal or stdin. */
  @Command(name = "add", mixinStandardHelpOptions = true,
      description = {"Add a user to FILE, or change their password, storing a salted PBKDF2-SHA256"
          + " hash. The password is read from the terminal (asked twice, not echoed) or, without a"
          + " terminal, from the first line of standard input. A new FILE is readable by its owner"
          + " only."})
  static final class Add implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--file", required = true, paramLabel = "FILE", description = "Users file.")
    Path file;

    @Option(names = "--user", required = true, paramLabel = "NAME", description = "User name.")
    String user;

    /** The terminal, or null when input is piped; tests set both. */
    Console console = System.console();
    InputStream stdin = System.in;

    @Override
    public Integer call() throws IOException {
      try {
        UsersFile.requireValidUserName(user);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "--user: " + e.getMessage());
      }
      final char[] password = readPassword();
      try {
        if (password.length == 0) {
          throw new ParameterException(spec.commandLine(), "the password must not be empty");
        }
        UsersFile.setCredential(file, user, PasswordHashes.hash(password));
      } finally {
        PasswordHashes.wipe(password);
      }
      spec.commandLine().getOut().println("Stored a salted hash of " + user + "'s password in "
          + file.toAbsolutePath());
      spec.commandLine().getOut().flush();
      return 0;
    }

    private char[] readPassword() throws IOException {
      if (console == null) {
        final String line =
            new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8)).readLine();
        return line == null ? new char[0] : line.toCharArray();
      }
      final char[] first = console.readPassword("Password for %s: ", user);
      final char[] second = console.readPassword("Repeat the password: ");
      try {
        if (first == null || second == null || !Arrays.equals(first, second)) {
          throw new ParameterException(spec.commandLine(), "the passwords differ");
        }
        return first.clone();
      } finally {
        if (first != null) {
          PasswordHashes.wipe(first);
        }
        if (second != null) {
          PasswordHashes.wipe(second);
        }
      }
    }
  }

  /** For tests: a command line with this command's subcommands. */
  static CommandLine commandLine() {
    return new CommandLine(new UsersCommand());
  }
}
