-- The normalised text of statements seen for the first time. $1: queryids.
SELECT DISTINCT ON (queryid) queryid::text AS queryid, left(query, 2000) AS query
FROM pg_stat_statements(true)
WHERE queryid::text = ANY($1::text[])
