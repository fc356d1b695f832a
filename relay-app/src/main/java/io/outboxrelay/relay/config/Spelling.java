package io.outboxrelay.relay.config;

import java.util.Collection;

/** Finds the name a misspelt key was probably meant to be. Stateless. */
final class Spelling {

  private Spelling() {}

  /**
   * The candidate closest to a name by edit distance.
   *
   * @param name the misspelt name
   * @param candidates the names it may have meant
   * @param maxDistance the largest edit distance still taken for a typo
   * @return the closest candidate, or {@code null} when none is within {@code maxDistance}
   */
  static String nearest(String name, Collection<String> candidates, int maxDistance) {
    String best = null;
    int bestDistance = maxDistance + 1;
    for (String candidate : candidates) {
      int d = distance(name, candidate);
      if (d < bestDistance
          || (d == bestDistance && best != null && candidate.compareTo(best) < 0)) {
        bestDistance = d;
        best = candidate;
      }
    }
    return best;
  }

  /** Levenshtein distance. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
