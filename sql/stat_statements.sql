-- Every 10 s when pg_stat_statements >= 1.11 is installed: cumulative
-- counters of this database's statements, without their text (reading the
-- text file on every call is what makes pg_stat_statements expensive).
-- @extschema@: the extension's schema, quoted, written in by the runner.
-- Top-level and nested entries of one queryid are summed.
SELECT /* inflight:stat_statements */ queryid::text AS queryid,
       sum(calls)::float8 AS calls,
       sum(total_exec_time)::float8 AS total_exec_time,
       -- the sum of squares, per entry from its mean and (population) stddev: the history's spread
       sum(calls * (stddev_exec_time ^ 2 + mean_exec_time ^ 2))::float8 AS exec_time_sq,
       sum(shared_blk_read_time)::float8 AS read_time,
       sum(shared_blks_read)::float8 AS shared_blks_read,
       sum(shared_blks_hit)::float8 AS shared_blks_hit,
       -- when the entry was made (its first call since a reset): a queryid first seen by a read after
       -- a restart ran before it when it was made before the postmaster started
       (extract(epoch FROM min(stats_since)) * 1000)::float8 AS stats_since_ms,
       bool_or(userid = me.oid) AS own,
       -- this role's calls and their time alone: what watching costs, apart from another role's runs of the same file
       coalesce(sum(calls) FILTER (WHERE userid = me.oid), 0)::float8 AS own_calls,
       coalesce(sum(total_exec_time) FILTER (WHERE userid = me.oid), 0)::float8 AS own_exec_time
FROM @extschema@.pg_stat_statements(false)
     -- this role, once: the one row of pg_roles for current_user
     CROSS JOIN (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user) AS me
WHERE dbid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
  AND queryid IS NOT NULL
GROUP BY queryid
-- inflight's own entries first: what watching costs is read from them
ORDER BY own DESC, 3 DESC
LIMIT 500
