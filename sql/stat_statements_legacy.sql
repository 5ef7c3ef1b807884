-- pg_stat_statements 1.8 to 1.10 named the read time blk_read_time
-- (total_time before 1.8 is not read). @extschema@ as in stat_statements.sql.
SELECT /* inflight:stat_statements_legacy */ queryid::text AS queryid,
       sum(calls)::float8 AS calls,
       sum(total_exec_time)::float8 AS total_exec_time,
       -- the sum of squares, per entry from its mean and (population) stddev: the history's spread
       sum(calls * (stddev_exec_time ^ 2 + mean_exec_time ^ 2))::float8 AS exec_time_sq,
       sum(blk_read_time)::float8 AS read_time,
       sum(shared_blks_read)::float8 AS shared_blks_read,
       sum(shared_blks_hit)::float8 AS shared_blks_hit,
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
