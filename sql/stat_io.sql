-- Every second: pg_stat_io counters (18: bytes are columns of their own).
-- Cumulative; the collector turns them into deltas.
SELECT /* inflight:stat_io */ backend_type, object, context,
       coalesce(reads, 0)::float8 AS reads,
       coalesce(read_bytes, 0)::float8 AS read_bytes,
       coalesce(read_time, 0)::float8 AS read_time,
       coalesce(hits, 0)::float8 AS hits,
       coalesce(writes, 0)::float8 AS writes,
       coalesce(write_bytes, 0)::float8 AS write_bytes,
       coalesce(extends, 0)::float8 AS extends,
       coalesce(evictions, 0)::float8 AS evictions
FROM pg_catalog.pg_stat_io
