-- Every 5 s: the settings that decide how reads are issued, and whether a
-- change waits for a restart. $1: the names.
SELECT /* inflight:settings */ name, setting, unit, source, pending_restart, enumvals, vartype
FROM pg_catalog.pg_settings
WHERE name = ANY($1::text[])
