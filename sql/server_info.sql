-- Every 5 s: a new postmaster start time means the server restarted.
SELECT /* inflight:server_info */ current_setting('server_version') AS server_version,
       current_setting('server_version_num')::int AS server_version_num,
       (extract(epoch FROM pg_catalog.pg_postmaster_start_time()) * 1000)::float8 AS postmaster_start_ms
