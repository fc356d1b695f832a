package io.outboxrelay.writer.spring;

/**
 * The transaction boundaries on a pool with auto-commit on, under the DataSource's transaction
 * manager.
 */
public class AutoCommitPoolDataSourceManagerTransactionBoundaryIT
    extends AbstractTransactionBoundaryIT {

  @Override
  protected boolean poolAutoCommit() {
    return true;
  }

  @Override
  protected boolean jpa() {
    return false;
  }
}
