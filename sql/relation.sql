-- Once per relation file seen in pg_aios: its name and size in blocks.
-- Only resolvable in the database this connection is in. $1: relfilenode.
SELECT /* inflight */ (SELECT n.nspname || '.' || c.relname
          FROM pg_catalog.pg_class c
          JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
         WHERE c.oid = pg_catalog.pg_filenode_relation(0, $1::oid)) AS name,
       (pg_catalog.pg_relation_size(pg_catalog.pg_filenode_relation(0, $1::oid))
          / current_setting('block_size')::int)::float8 AS blocks
