package io.outboxrelay.relay.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.kafka.common.utils.Utils;

/**
 * The entries of {@code kafka.bootstrap.servers}: comma-separated {@code host:port}, an IPv6
 * address in brackets. {@link #problems} checks their form when the configuration is loaded,
 * without looking any name up; {@link #unresolvable} looks the hosts up at startup, so a relay
 * whose bootstrap servers cannot be found waits for them for a bounded time and then stops with a
 * message instead of retrying forever. Stateless and thread-safe.
 */
public final class BootstrapServers {

  /** DNS labels (underscores too: container names have them), or a dotted IPv4 address. */
  private static final Pattern HOST =
      Pattern.compile(
          "[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*\\.?");

  /** Hex groups and colons, an optional dotted IPv4 tail and an optional zone. */
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(%[\\w.-]+)?");

  private static final Pattern PORT = Pattern.compile("\\d{1,5}");

  private BootstrapServers() {}

  /**
   * What is wrong with the servers, one line per bad entry. Empty entries are skipped, as Kafka
   * does.
   *
   * @param servers the value of {@code kafka.bootstrap.servers}
   * @return the problems, each naming the key; empty when every entry is well-formed
   */
  static List<String> problems(String servers) {
    List<String> problems = new ArrayList<>();
    for (String entry : entries(servers)) {
      String problem = problem(entry);
      if (problem != null) {
        problems.add(RelayConfigKeys.KAFKA_BOOTSTRAP_SERVERS.name() + ": " + problem);
      }
    }
    return problems;
  }

  /**
   * The bootstrap servers whose host does not resolve to an address, each as {@code "host:port
   * (why)"}.
   *
   * @param servers the comma-separated {@code host:port} list
   * @return the unresolvable ones, in the order given; empty when every host resolves
   */
  public static List<String> unresolvable(String servers) {
    List<String> bad = new ArrayList<>();
    for (String s : entries(servers)) {
      String host = Utils.getHost(s);
      if (host == null) {
        bad.add(s + " (not host:port)");
        continue;
      }
      try {
        InetAddress.getAllByName(host);
      } catch (UnknownHostException e) {
        bad.add(s + " (unknown host)");
      } catch (SecurityException e) {
        bad.add(s + " (" + e.getMessage() + ")");
      }
    }
    return bad;
  }

  /**
   * How many bootstrap servers the list names.
   *
   * @param servers the comma-separated list
   * @return the number of non-empty entries
   */
  public static int count(String servers) {
    return entries(servers).size();
  }

  /** The trimmed entries; empty ones are skipped, as Kafka does. */
  private static List<String> entries(String servers) {
    List<String> entries = new ArrayList<>();
    for (String part : servers.split(",")) {
      String entry = part.trim();
      if (!entry.isEmpty()) {
        entries.add(entry);
      }
    }
    return entries;
  }

  private static String problem(String entry) {
    String quoted = "'" + entry + "'";
    if (entry.chars().anyMatch(Character::isWhitespace)) {
      return quoted + " contains a space: separate servers with commas, e.g. k1:9092,k2:9092";
    }
    int scheme = entry.indexOf("://");
    if (scheme >= 0) {
      return quoted
          + " has a scheme: write host:port ("
          + entry.substring(scheme + 3)
          + "); the security protocol is set by "
          + RelayConfigKeys.KAFKA_PRODUCER_PREFIX
          + "security.protocol";
    }
    String host;
    String port;
    if (entry.startsWith("[")) {
      int close = entry.indexOf(']');
      if (close < 0) {
        return quoted
            + " has no closing ]: write an IPv6 address as [address]:port, e.g. [::1]:9092";
      }
      host = entry.substring(1, close);
      if (!IPV6.matcher(host).matches()) {
        return quoted + ": only an IPv6 address goes in brackets, e.g. [::1]:9092";
      }
      String rest = entry.substring(close + 1);
      if (!rest.startsWith(":")) {
        return quoted + " has no port: write [address]:port, e.g. " + entry + ":9092";
      }
      port = rest.substring(1);
    } else {
      int colon = entry.lastIndexOf(':');
      if (colon < 0) {
        return quoted + " has no port: write host:port, e.g. " + entry + ":9092";
      }
      host = entry.substring(0, colon);
      port = entry.substring(colon + 1);
      if (host.contains(":")) {
        return quoted
            + " looks like an IPv6 address without brackets: write ["
            + host
            + "]:"
            + port;
      }
      if (host.isEmpty()) {
        return quoted + " has no host: write host:port, e.g. kafka-1" + entry;
      }
      if (!HOST.matcher(host).matches()) {
        return quoted
            + ": '"
            + host
            + "' is not a host name or address (letters, digits, '-', '_' and dots)";
      }
    }
    if (port.isEmpty()) {
      return quoted + " has no port: write host:port, e.g. " + entry + "9092";
    }
    if (!PORT.matcher(port).matches()
        || Integer.parseInt(port) < 1
        || Integer.parseInt(port) > 65535) {
      return quoted + " has port '" + port + "': a port is a number from 1 to 65535";
    }
    return null;
  }
}
