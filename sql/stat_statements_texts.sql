-- The normalised text of statements seen for the first time. $1: queryids.
-- @extschema@ as in stat_statements.sql.
SELECT DISTINCT ON (queryid) /* inflight:stat_statements_texts */ queryid::text AS queryid, left(query, 2000) AS query
FROM @extschema@.pg_stat_statements(true)
WHERE queryid::text = ANY($1::text[])
