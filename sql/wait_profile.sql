-- About once a second, where pg_wait_sampling is loaded and created: its
-- profile, the counts of the samples its background worker takes of every
-- backend's wait event (every profile_period ms, on-CPU as a NULL event with
-- sample_cpu), by pid, event and top-level queryid, cumulative since the
-- server started or the profile was reset. inflight takes the deltas between
-- two reads (lib/window/wait-profile.ts). A read costs the profile's length
-- (a few rows a backend), not the history ring's (its whole history_size,
-- copied out of the worker at every read). Idle sessions (Client:ClientRead)
-- and the auxiliary processes' main loops (Activity) are left out. One row:
-- the counts as [pid, event_type, event, queryid, count], the profile's
-- entries, all of them (the ended backends' stay until a reset, and each read
-- copies them all: lib/server/collector/wait-sampler.ts weighs that), this
-- server's clock (to place the runs' starts on inflight's) and this session's
-- pid (inflight's own samples are never a run).
SELECT /* inflight:wait_profile */
       coalesce(json_agg(json_build_array(pid, event_type, event, queryid::text, count))
                  FILTER (WHERE event_type IS DISTINCT FROM 'Activity' AND event IS DISTINCT FROM 'ClientRead'), '[]') AS counts,
       count(*)::float8 AS entries,
       (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now_ms,
       pg_catalog.pg_backend_pid() AS own_pid
FROM @extschema@.pg_wait_sampling_profile
