-- Every 100 ms, for a server without pg_aios (before 18) or a role that may
-- not read it: the same rows as activity_aios.sql, with no handles.
SELECT /* inflight */ a.pid,
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
       NULL::json AS handles
FROM pg_catalog.pg_stat_activity a
WHERE a.pid <> pg_catalog.pg_backend_pid()
  -- other roles' sessions, hidden from a role without pg_read_all_stats
  AND a.backend_type IS NOT NULL
  -- another inflight sampling the same server is not the workload either
  AND coalesce(strpos(a.query, '/* inflight */'), 0) = 0
  AND (a.backend_type = 'io worker'
       OR a.state IN ('active', 'fastpath function call')
       OR (a.state IS NULL AND a.wait_event_type IS DISTINCT FROM 'Activity'))
