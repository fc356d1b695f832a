package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.router.OutboxEvent;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class ChangeEventMapperTest {

  private static SourceRecord versionedInsert(long id, Long version) {
    return ChangeRecords.insertVersioned(id, "o-1", version).record();
  }

  @Test
  void readsTheAggregateVersionFromTheRowImageWhenTheTableHasTheColumn() {
    ChangeEventMapper mapper = new ChangeEventMapper();

    OutboxEvent versioned = mapper.map(versionedInsert(1, 41L));
    OutboxEvent unversioned = mapper.map(versionedInsert(2, null));

    assertThat(versioned.aggregateVersion()).isEqualTo(41L);
    assertThat(unversioned.aggregateVersion()).isNull();
  }

  @Test
  void readsNoVersionFromATableWithoutTheColumnAndTheVersionOnceItIsAdded() {
    ChangeEventMapper mapper = new ChangeEventMapper();

    OutboxEvent before = mapper.map(ChangeRecords.insert(1, "order", "o-1").record());
    OutboxEvent after = mapper.map(versionedInsert(2, 7L)); // the row schema after ADD COLUMN

    assertThat(before.aggregateVersion()).isNull();
    assertThat(after.aggregateVersion()).isEqualTo(7L);
  }
}
