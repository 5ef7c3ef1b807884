-- Every second, on 16 and 17: pg_stat_io had op_bytes instead of byte columns.
SELECT /* inflight:stat_io_op_bytes */ backend_type, object, context,
       coalesce(reads, 0)::float8 AS reads,
       (coalesce(reads, 0) * op_bytes)::float8 AS read_bytes,
       coalesce(read_time, 0)::float8 AS read_time,
       coalesce(hits, 0)::float8 AS hits,
       coalesce(writes, 0)::float8 AS writes,
       (coalesce(writes, 0) * op_bytes)::float8 AS write_bytes,
       coalesce(extends, 0)::float8 AS extends,
       coalesce(evictions, 0)::float8 AS evictions
FROM pg_catalog.pg_stat_io
