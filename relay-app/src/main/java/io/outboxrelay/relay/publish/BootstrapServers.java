package io.outboxrelay.relay.publish;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Utils;

/**
 * Resolves the host names of {@code kafka.bootstrap.servers}, so a relay whose bootstrap servers
 * cannot be found stops at once with a message instead of retrying forever. Stateless and
 * thread-safe.
 */
public final class BootstrapServers {

  private BootstrapServers() {}

  /**
   * The bootstrap servers whose host does not resolve to an address, each as {@code "host:port
   * (why)"}.
   *
   * @param servers the comma-separated {@code host:port} list
   * @return the unresolvable ones, in the order given; empty when every host resolves
   */
  public static List<String> unresolvable(String servers) {
    List<String> bad = new ArrayList<>();
    for (String server : servers.split(",")) {
      String s = server.trim();
      if (s.isEmpty()) {
        continue;
      }
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
    int n = 0;
    for (String server : servers.split(",")) {
      if (!server.isBlank()) {
        n++;
      }
    }
    return n;
  }
}
