package io.outboxrelay.testsupport.stack;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * What a {@link MariaDbServer} was built with. Immutable and thread-safe.
 *
 * @param baseDir the directory holding the datadir, config and logs
 * @param port the TCP port on 127.0.0.1
 * @param serverId {@code server_id}
 * @param binlog whether the binlog is on
 * @param binlogFormat {@code binlog_format}
 * @param binlogRowImage {@code binlog_row_image}
 * @param bufferPoolSize {@code innodb_buffer_pool_size}, e.g. {@code 256M}
 * @param extraOptions further {@code my.cnf} options ({@code null} value for a flag), overriding
 * @param startupTimeout how long initialisation plus startup may take
 * @param stopTimeout how long a clean shutdown may take before SIGKILL
 */
record MariaDbSettings(
    Path baseDir,
    int port,
    long serverId,
    boolean binlog,
    String binlogFormat,
    String binlogRowImage,
    String bufferPoolSize,
    Map<String, String> extraOptions,
    Duration startupTimeout,
    Duration stopTimeout) {}
