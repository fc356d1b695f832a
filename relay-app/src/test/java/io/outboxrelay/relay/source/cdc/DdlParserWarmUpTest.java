package io.outboxrelay.relay.source.cdc;

import static io.outboxrelay.relay.source.SqlDialect.MARIADB;
import static io.outboxrelay.relay.source.SqlDialect.MYSQL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.debezium.relational.TableId;
import io.debezium.relational.Tables;
import io.debezium.relational.ddl.DdlParser;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The warm-up's statements parse to the end with each grammar and a parser made as the engine makes
 * its own: a statement that failed would end the warm-up silently (it only logs at DEBUG), and the
 * start would be slower with nothing said. Until this test, a parser without a character set
 * registry failed at {@code CREATE DATABASE ... CHARSET}, and the {@code CREATE TABLE} after it was
 * never warmed up.
 */
class DdlParserWarmUpTest {

  static Stream<Arguments> grammars() {
    return Stream.of(
        Arguments.of("MariaDB", (Supplier<DdlParser>) () -> DdlParserWarmUp.parser(MARIADB)),
        Arguments.of("MySQL", (Supplier<DdlParser>) () -> DdlParserWarmUp.parser(MYSQL)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("grammars")
  void aRestartsStatementAloneParsesAndDefinesNoTable(String grammar, Supplier<DdlParser> parser) {
    DdlParser p = parser.get();
    Tables tables = new Tables();

    assertThatCode(() -> DdlParserWarmUp.RECOVERY.forEach(ddl -> p.parse(ddl, tables)))
        .doesNotThrowAnyException();
    assertThat(tables.size()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("grammars")
  void aFirstStartsStatementsParseAfterItAndDefineTheOutboxTable(
      String grammar, Supplier<DdlParser> parser) {
    DdlParser p = parser.get();
    Tables tables = new Tables();

    DdlParserWarmUp.RECOVERY.forEach(ddl -> p.parse(ddl, tables));
    DdlParserWarmUp.SNAPSHOT.forEach(ddl -> p.parse(ddl, tables));

    assertThat(tables.forTable(new TableId("warm_up", null, "outbox_events")))
        .isNotNull()
        .satisfies(t -> assertThat(t.columnWithName("payload")).isNotNull());
  }
}
