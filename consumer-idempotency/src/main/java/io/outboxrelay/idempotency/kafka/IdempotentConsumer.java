package io.outboxrelay.idempotency.kafka;

import io.opentelemetry.api.OpenTelemetry;
import io.outboxrelay.idempotency.Counters;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.router.OutboxHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A Kafka consumer loop that applies each event once: for every record it takes the event id from a
 * header, runs the {@link RecordHandler} through an {@link IdempotentProcessor} (one database
 * transaction holding the id and the business change), and commits the Kafka offset only after that
 * transaction committed ({@code commitSync} after each polled batch, and of what is done when
 * partitions are revoked or the consumer stops). A crash between the two commits redelivers records
 * whose ids are already recorded: they come back as duplicates and are skipped. It reads with
 * {@code isolation.level=read_committed} unless told otherwise, so records of aborted Kafka
 * transactions never reach the handler; deduplication by event id remains what makes effects happen
 * once, whatever the producer's delivery guarantee.
 *
 * <p>A failing record is rolled back and tried again per the {@link RetryPolicy}: its partition is
 * paused and positioned on it while the consumer goes on polling (so retries never exceed {@code
 * max.poll.interval.ms}) and processing other partitions. When the attempts are used up, or at once
 * for a poison record, the {@link FailurePolicy} dead-letters it or stops the consumer.
 *
 * <p>Each record's value is hashed (SHA-256) for the processor's optional conflict check ({@link
 * IdempotentProcessor.Builder#conflictCheck()}): a record whose event id was already processed with
 * another payload is a {@link io.outboxrelay.idempotency.Outcome#CONFLICT}, counted, reported to
 * the listener, and then treated as poison (a producer gave two events one id; retrying cannot
 * help, and skipping it silently would lose an event): the failure policy dead-letters it or stops
 * the consumer.
 *
 * <pre>{@code
 * IdempotentConsumer consumer = IdempotentConsumer.builder()
 *     .kafkaProperties(Map.of("bootstrap.servers", "kafka:9092", "group.id", "billing"))
 *     .topics("outbox.event.order")
 *     .processor(IdempotentProcessor.builder(dataSource, "billing").build())
 *     .handler((record, connection) -> applyOrderEvent(record, connection))
 *     .failurePolicy(FailurePolicy.deadLetter("billing.dlq"))
 *     .build();
 * Runtime.getRuntime().addShutdownHook(new Thread(consumer::close));
 * consumer.run(); // blocks
 * }</pre>
 *
 * <p>{@link #run()} must be called from one thread, once; {@link #close()} and {@link #counters()}
 * may be called from any thread.
 */
public interface IdempotentConsumer extends AutoCloseable {

  /**
   * Starts building a consumer.
   *
   * @return a builder
   */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Subscribes and runs the loop on the calling thread until {@link #close()} is called. Before
   * returning it commits the offsets of what was processed and closes its Kafka clients.
   *
   * @throws ConsumerStoppedException if a record could not be processed and the failure policy is
   *     to stop, the database stayed unreachable, or a record could not be dead-lettered
   * @throws IllegalStateException if called twice or after {@link #close()}
   * @throws org.apache.kafka.common.KafkaException on a fatal Kafka error (e.g. not authorised)
   */
  void run();

  /**
   * Stops the loop: wakes up the poll, lets the current record finish, commits, and waits until
   * {@link #run()} has returned (at most the close timeout). Idempotent; safe from a shutdown hook.
   * From the loop's own thread (a handler or listener) it only requests the stop.
   */
  @Override
  void close();

  /** Counts since start; thread-safe, never {@code null}. */
  Counters counters();

  /**
   * Configures an {@link IdempotentConsumer}. Required: {@link #kafkaProperties}, {@link #topics},
   * {@link #processor} and {@link #handler}.
   *
   * <p>Not thread-safe; use from one thread.
   */
  final class Builder {

    private final Map<String, Object> kafkaProperties = new HashMap<>();
    private final Map<String, Object> producerProperties = new HashMap<>();
    private final List<String> topics = new ArrayList<>();
    private IdempotentProcessor processor;
    private RecordHandler handler;
    private RetryPolicy retryPolicy = RetryPolicy.defaults();
    private FailurePolicy failurePolicy = FailurePolicy.stop();
    private ConsumerListener listener = new ConsumerListener() {};
    private String idHeader = OutboxHeaders.ID;
    private String versionHeader = OutboxHeaders.AGGREGATE_VERSION;
    private Duration pollTimeout = Duration.ofMillis(500);
    private Duration closeTimeout = Duration.ofSeconds(30);
    // Stays unloaded (and may be absent) unless openTelemetry(...) is called: see RecordTracing.
    private OpenTelemetry openTelemetry;

    private Builder() {}

    /**
     * Adds consumer settings. {@code bootstrap.servers} and {@code group.id} are required. {@code
     * enable.auto.commit} is set to false; an explicit true is refused. {@code auto.offset.reset}
     * defaults to {@code earliest}, so a new group does not skip events published before it
     * started. {@code isolation.level} defaults to {@code read_committed}: records of aborted Kafka
     * transactions (an exactly-once relay's or Kafka Connect's exactly-once source tasks') are
     * never delivered, and a topic without transactions reads as with {@code read_uncommitted}. An
     * explicit {@code read_uncommitted} is allowed and logged at WARN when the consumer is built:
     * the aborted records are then delivered and applied like any other, and a later committed copy
     * of the same event is skipped as a duplicate. Deserializers are byte arrays; others are
     * refused.
     *
     * @param properties Kafka consumer settings; not {@code null}
     * @return this builder
     */
    public Builder kafkaProperties(Map<String, ?> properties) {
      kafkaProperties.putAll(properties);
      return this;
    }

    /**
     * Adds settings of the dead-letter producer, over its defaults: the consumer's {@code
     * bootstrap.servers} and {@code security.*}, {@code ssl.*}, {@code sasl.*} settings, {@code
     * acks=all} (other values are refused), idempotence on.
     *
     * @param properties Kafka producer settings; not {@code null}
     * @return this builder
     */
    public Builder producerProperties(Map<String, ?> properties) {
      producerProperties.putAll(properties);
      return this;
    }

    /**
     * Adds topics to subscribe to.
     *
     * @param names topic names; not {@code null}
     * @return this builder
     */
    public Builder topics(String... names) {
      for (String name : names) {
        topics.add(Objects.requireNonNull(name, "topic"));
      }
      return this;
    }

    /**
     * Sets the processor; its consumer group should be the Kafka {@code group.id}.
     *
     * @param processor the processor; not {@code null}
     * @return this builder
     */
    public Builder processor(IdempotentProcessor processor) {
      this.processor = Objects.requireNonNull(processor, "processor");
      return this;
    }

    /**
     * Sets the business handler.
     *
     * @param handler the handler; not {@code null}
     * @return this builder
     */
    public Builder handler(RecordHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /**
     * Sets the retry policy (default {@link RetryPolicy#defaults()}).
     *
     * @param retryPolicy the policy; not {@code null}
     * @return this builder
     */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
      return this;
    }

    /**
     * Sets what happens to a record that keeps failing (default {@link FailurePolicy#stop()}).
     *
     * @param failurePolicy the policy; not {@code null}
     * @return this builder
     */
    public Builder failurePolicy(FailurePolicy failurePolicy) {
      this.failurePolicy = Objects.requireNonNull(failurePolicy, "failurePolicy");
      return this;
    }

    /**
     * Sets the listener (default: none).
     *
     * @param listener the listener; not {@code null}
     * @return this builder
     */
    public Builder listener(ConsumerListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Sets the header holding the event id (default {@code id}, as the relay writes it). The id is
     * read as UTF-8 text, strictly: a record whose id header is missing, or whose bytes are not
     * valid UTF-8, is poison and goes to the {@link FailurePolicy} at once, without retries (two
     * different invalid ids must not be taken for one event).
     *
     * @param name the header name; not blank
     * @return this builder
     */
    public Builder idHeader(String name) {
      this.idHeader = requireHeaderName(name);
      return this;
    }

    /**
     * Sets the header holding the aggregate version as decimal text (default {@code
     * aggregate_version}), or turns versions off with {@code null}. A record with the header must
     * also carry {@code aggregate_type} and {@code aggregate_id} (or a key); it is version-checked
     * if the processor's version check is on.
     *
     * @param name the header name, or {@code null}
     * @return this builder
     */
    public Builder versionHeader(String name) {
      this.versionHeader = name == null ? null : requireHeaderName(name);
      return this;
    }

    /**
     * Sets the longest time one poll blocks (default 500 ms).
     *
     * @param timeout positive
     * @return this builder
     */
    public Builder pollTimeout(Duration timeout) {
      this.pollTimeout = requirePositive(timeout, "pollTimeout");
      return this;
    }

    /**
     * Sets how long {@link IdempotentConsumer#close()} waits for the loop to end (default 30 s).
     *
     * @param timeout positive
     * @return this builder
     */
    public Builder closeTimeout(Duration timeout) {
      this.closeTimeout = requirePositive(timeout, "closeTimeout");
      return this;
    }

    /**
     * Sets the OpenTelemetry instance that traces each record. Without this call, when the
     * OpenTelemetry API is on the classpath, the loop uses {@code GlobalOpenTelemetry.getOrNoop()}
     * (the instance the application or the OpenTelemetry Java agent registered, else a no-op one),
     * looked up when the first record is processed: register yours before {@link
     * IdempotentConsumer#run()}. Without the API on the classpath there is no tracing and nothing
     * is needed.
     *
     * <p>Each record is processed inside a span of kind CONSUMER named {@code process <topic>},
     * whose parent is the context of the record's W3C {@code traceparent} and {@code tracestate}
     * headers (a record without them starts a trace) and with the record's W3C {@code baggage}
     * current; the handler runs with both current, so its own spans are children of the record's.
     * {@link OpenTelemetry#noop()} records no spans but still makes the headers' context current
     * for the handler.
     *
     * @param openTelemetry the instance; not {@code null}
     * @return this builder
     */
    public Builder openTelemetry(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
      return this;
    }

    /**
     * Validates the settings and creates the Kafka clients (nothing connects before {@link
     * IdempotentConsumer#run()}).
     *
     * @return the consumer
     * @throws IllegalArgumentException naming every refused or missing setting
     * @throws IllegalStateException if a required part is missing
     * @throws org.apache.kafka.common.KafkaException if Kafka rejects a setting
     */
    public IdempotentConsumer build() {
      if (processor == null || handler == null || topics.isEmpty()) {
        throw new IllegalStateException("processor, handler and at least one topic are required");
      }
      Map<String, Object> consumerSettings = ConsumerSettings.consumer(kafkaProperties);
      Map<String, Object> producerSettings =
          failurePolicy.action() == FailurePolicy.Action.DEAD_LETTER
              ? ConsumerSettings.deadLetterProducer(consumerSettings, producerProperties)
              : null;
      KafkaConsumer<byte[], byte[]> consumer =
          new KafkaConsumer<>(
              consumerSettings, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      DeadLetterPublisher deadLetters = null;
      if (producerSettings != null) {
        try {
          deadLetters =
              new DeadLetterPublisher(
                  new KafkaProducer<>(
                      producerSettings, new ByteArraySerializer(), new ByteArraySerializer()),
                  failurePolicy.deadLetterTopic(),
                  consumerSettings.get("group.id").toString());
        } catch (RuntimeException e) {
          consumer.close(Duration.ZERO);
          throw e;
        }
      }
      String groupId = consumerSettings.get("group.id").toString();
      RecordEvents events = new RecordEvents(idHeader, versionHeader);
      return new KafkaIdempotentConsumer(
          new KafkaIdempotentConsumer.Parts(
              consumer,
              deadLetters,
              List.copyOf(topics),
              processor,
              handler,
              events,
              RecordTracing.forConsumer(openTelemetry, groupId, events),
              retryPolicy,
              failurePolicy,
              listener,
              pollTimeout,
              closeTimeout,
              groupId));
    }

    private static String requireHeaderName(String name) {
      return RecordEvents.requireHeaderName(name);
    }

    private static Duration requirePositive(Duration duration, String what) {
      if (duration == null || duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, got " + duration);
      }
      return duration;
    }
  }
}
