-- Every 5 s: a new postmaster start time means the server restarted; the
-- session's pg_conf_load_time() (ms) is the reload the settings read next
-- reflects (activity.sql reads it every tick: a move is a reload).
SELECT /* inflight:server_info */ current_setting('server_version') AS server_version,
       current_setting('server_version_num')::int AS server_version_num,
       (extract(epoch FROM pg_catalog.pg_postmaster_start_time()) * 1000)::float8 AS postmaster_start_ms,
       (extract(epoch FROM pg_catalog.pg_conf_load_time()) * 1000)::float8 AS conf_load_ms
