package io.outboxrelay.writer.spring;

/** The transaction boundaries on a pool with auto-commit on, under JpaTransactionManager. */
public class AutoCommitPoolJpaManagerTransactionBoundaryIT extends AbstractTransactionBoundaryIT {

  @Override
  protected boolean poolAutoCommit() {
    return true;
  }

  @Override
  protected boolean jpa() {
    return true;
  }
}
