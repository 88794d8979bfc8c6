package dev.infuse.udfs.shards;

/**
 * A published shard file and what a manifest records about it.
 *
 * @param path where it was published
 * @param bytes its size
 * @param sha256 lower-case hex SHA-256 of its bytes
 */
public record ShardFile(java.nio.file.Path path, long bytes, String sha256) {}
