package io.outboxrelay.bench;

/**
 * A pipeline of the peers group cannot run on this machine (its distribution could not be
 * downloaded, or no Java runtime it needs is installed): the group says why in one line and runs
 * the others. The message is that line, saying what to do.
 */
final class PeerUnavailableException extends Exception {

  private static final long serialVersionUID = 1L;

  PeerUnavailableException(String message) {
    super(message);
  }
}
