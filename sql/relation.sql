-- Once per relation file seen in pg_aios: its name and size in blocks.
-- Only resolvable in the database this connection is in. $1: relfilenode.
-- The size is pg_class.relpages (as of the last VACUUM or ANALYZE), not
-- pg_relation_size(): that takes a lock on the relation, and would queue
-- behind a user's ACCESS EXCLUSIVE request. NULL when never counted.
SELECT /* inflight:relation */ n.nspname || '.' || c.relname AS name,
       CASE WHEN c.relpages > 0 THEN c.relpages::float8 END AS blocks
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = pg_catalog.pg_filenode_relation(0, $1::oid)
