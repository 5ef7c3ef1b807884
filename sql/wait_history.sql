-- About once a second, where pg_wait_sampling is loaded and created: the
-- samples its background worker wrote into its history ring (every backend's
-- wait event, every history_period ms, on-CPU as a NULL event with
-- sample_cpu) since the last read: $1 = the newest ts seen (epoch µs; NULL on
-- the first read, which only sets the cursor). Every call copies the whole
-- ring out of the worker (its cost grows with history_size, not with what is
-- new), so it is read seldom. Idle sessions (Client:ClientRead) and the
-- auxiliary processes' main loops (Activity) are left out here. One row: the
-- ring's oldest and newest ts and its length, whether it dropped samples
-- between two reads (oldest past $1 in a full ring), and this server's clock
-- (to map ts onto inflight's).
WITH /* inflight:wait_history */ ring AS MATERIALIZED (
  SELECT pid, (extract(epoch FROM ts) * 1000000)::int8 AS ts_us, event_type, event, queryid
  FROM @extschema@.pg_wait_sampling_history
)
SELECT
       min(ts_us) AS oldest_us,
       max(ts_us) AS newest_us,
       count(*)::int AS ring_rows,
       (extract(epoch FROM clock_timestamp()) * 1000000)::int8 AS now_us,
       coalesce(json_agg(json_build_array(pid, ts_us, event_type, event, queryid::text) ORDER BY ts_us)
                  FILTER (WHERE ts_us > $1::int8
                            AND event_type IS DISTINCT FROM 'Activity'
                            AND event IS DISTINCT FROM 'ClientRead'), '[]') AS samples
FROM ring
