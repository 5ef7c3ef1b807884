-- Every tick: backends that are doing something, and every io worker, from
-- pg_stat_get_activity(NULL), the function under pg_stat_activity, without
-- the view's joins (database and role names come from names.sql, cached).
-- Query text only for a run not seen before: $1 = the ids ("pid:query start
-- ms") of the runs the window already holds. Cut at 2,000 characters.
-- Plus inflight's own row, the one with conf_load_ms: this session's
-- pg_conf_load_time(), which moves at a reload (the session re-reads the
-- files before its next statement), so a reload is seen on the next tick
-- and the settings read again at once. The own row is always there, even
-- on an idle server; it is not the workload and never counted.
-- The backend of a run still open (its pid in $2) is returned when it has
-- gone idle too: the statement ended at its state_change, or, when it has
-- begun another since, before that one's query_start; the tick that no
-- longer sees it active comes up to a sampling interval later (a second at
-- the idle cadence). So is a session whose statements the polls miss (in
-- $2 too, lib/model/window/session-statements.ts): its last statement's
-- query_id, start and end place the run pg_wait_sampling's profile finds
-- of it. An idle row's text is never needed.
SELECT /* inflight:activity */ s.pid,
       s.leader_pid,
       s.backend_type,
       s.state,
       s.wait_event_type,
       s.wait_event,
       s.query_id::text AS query_id,
       (extract(epoch FROM s.query_start) * 1000)::float8 AS query_start_ms,
       (extract(epoch FROM s.state_change) * 1000)::float8 AS state_change_ms,
       s.datid::int8 AS datid,
       s.usesysid::int8 AS usesysid,
       CASE WHEN s.pid = pg_catalog.pg_backend_pid()
              OR s.state LIKE 'idle%'
              OR s.pid::text || ':' || round(extract(epoch FROM s.query_start) * 1000)::text = ANY($1::text[])
            THEN NULL ELSE left(s.query, 2000) END AS query,
       CASE WHEN s.pid = pg_catalog.pg_backend_pid()
            THEN (extract(epoch FROM pg_catalog.pg_conf_load_time()) * 1000)::float8 END AS conf_load_ms
FROM pg_catalog.pg_stat_get_activity(NULL) s
WHERE s.pid = pg_catalog.pg_backend_pid()
   OR (
       -- other roles' sessions, hidden from a role without pg_read_all_stats
       s.backend_type IS NOT NULL
       -- another inflight sampling the same server is not the workload either
       AND coalesce(strpos(s.query, '/* inflight'), 0) = 0
       AND (s.backend_type = 'io worker'
            OR s.state IN ('active', 'fastpath function call')
            OR (s.state IS NULL AND s.wait_event_type IS DISTINCT FROM 'Activity')
            OR (s.state LIKE 'idle%' AND s.pid = ANY($2::int4[]))))
