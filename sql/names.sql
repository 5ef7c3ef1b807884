-- Database and role names by oid, for the activity sample (which carries
-- oids only) and to name relation files in other databases. Read at connect
-- and again when an oid it does not know appears.
SELECT /* inflight:names */ 'database' AS kind, oid::int8 AS oid, datname AS name FROM pg_catalog.pg_database
UNION ALL
SELECT 'role', oid::int8, rolname FROM pg_catalog.pg_roles
