-- Database names by oid, to name relation files in other databases.
SELECT /* inflight */ oid::int8 AS oid, datname FROM pg_catalog.pg_database
