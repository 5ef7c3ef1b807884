-- What this server offers and this role may read, decided from the catalog
-- (not the version string). Run once per connection.
SELECT /* inflight:capabilities */
  current_setting('server_version') AS server_version,
  current_setting('server_version_num')::int AS server_version_num,
  to_regclass('pg_catalog.pg_aios') IS NOT NULL AS aios,
  coalesce(to_regprocedure('pg_catalog.pg_get_aios()') IS NOT NULL
    AND has_function_privilege('pg_catalog.pg_get_aios()', 'EXECUTE'), false) AS aios_allowed,
  coalesce(to_regprocedure('pg_catalog.pg_control_system()') IS NOT NULL
    AND has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE'), false) AS control_system_allowed,
  to_regclass('pg_catalog.pg_stat_io') IS NOT NULL AS stat_io,
  EXISTS (
    SELECT 1 FROM pg_catalog.pg_attribute
    WHERE attrelid = to_regclass('pg_catalog.pg_stat_io') AND attname = 'read_bytes'
  ) AS stat_io_bytes,
  (SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'pg_stat_statements') AS stat_statements,
  (SELECT n.nspname FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_stat_statements') AS stat_statements_schema,
  pg_catalog.pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') AS read_all_stats,
  current_user AS role_name,
  current_database() AS database,
  (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())::bigint AS database_oid
