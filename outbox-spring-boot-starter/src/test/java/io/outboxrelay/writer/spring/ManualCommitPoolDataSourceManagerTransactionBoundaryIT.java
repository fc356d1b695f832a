package io.outboxrelay.writer.spring;

/**
 * The transaction boundaries on a pool with auto-commit off, under the DataSource's transaction
 * manager.
 */
public class ManualCommitPoolDataSourceManagerTransactionBoundaryIT
    extends AbstractTransactionBoundaryIT {

  @Override
  protected boolean poolAutoCommit() {
    return false;
  }

  @Override
  protected boolean jpa() {
    return false;
  }
}
