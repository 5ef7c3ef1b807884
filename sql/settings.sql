-- Every 5 s: the settings that decide how reads are issued, and whether a
-- change waits for a restart. Every io_* setting the server has (18's
-- io_workers, 19's io_min_workers .. io_worker_launch_interval: no list of
-- ours decides which exist), and $1: the other names.
SELECT /* inflight:settings */ name, setting, unit, source, pending_restart, enumvals, vartype
FROM pg_catalog.pg_settings
WHERE name LIKE 'io\_%' OR name = ANY($1::text[])
