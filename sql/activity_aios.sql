-- Every 100 ms: backends that are doing something, every io worker, and the
-- AIO handles in flight, aggregated per issuing pid. Query text is cut at
-- 2,000 characters: the window keeps it per run, not per tick.
WITH /* inflight */ handles AS (
  SELECT pid,
         json_agg(json_build_array(state, operation, length, f_sync, target_desc)) AS handles
  FROM pg_catalog.pg_aios
  GROUP BY pid
)
SELECT a.pid,
       a.leader_pid,
       a.backend_type,
       a.state,
       a.wait_event_type,
       a.wait_event,
       a.query_id::text AS query_id,
       (extract(epoch FROM a.query_start) * 1000)::float8 AS query_start_ms,
       a.datname,
       a.usename,
       left(a.query, 2000) AS query,
       h.handles
FROM pg_catalog.pg_stat_activity a
LEFT JOIN handles h ON h.pid = a.pid
WHERE a.pid <> pg_catalog.pg_backend_pid()
  -- other roles' sessions, hidden from a role without pg_read_all_stats
  AND a.backend_type IS NOT NULL
  -- another inflight sampling the same server is not the workload either
  AND coalesce(strpos(a.query, '/* inflight */'), 0) = 0
  AND (a.backend_type = 'io worker'
       OR a.state IN ('active', 'fastpath function call')
       OR (a.state IS NULL AND a.wait_event_type IS DISTINCT FROM 'Activity')
       OR h.pid IS NOT NULL)
