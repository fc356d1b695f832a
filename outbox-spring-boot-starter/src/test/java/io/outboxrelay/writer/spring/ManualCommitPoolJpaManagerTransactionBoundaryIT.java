package io.outboxrelay.writer.spring;

/** The transaction boundaries on a pool with auto-commit off, under JpaTransactionManager. */
public class ManualCommitPoolJpaManagerTransactionBoundaryIT extends AbstractTransactionBoundaryIT {

  @Override
  protected boolean poolAutoCommit() {
    return false;
  }

  @Override
  protected boolean jpa() {
    return true;
  }
}
