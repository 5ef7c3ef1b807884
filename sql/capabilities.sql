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
  (SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'pg_wait_sampling') AS wait_sampling,
  (SELECT n.nspname FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_wait_sampling') AS wait_sampling_schema,
  -- its settings exist only where the library is preloaded (NULL else)
  (SELECT setting::int FROM pg_catalog.pg_settings WHERE name = 'pg_wait_sampling.profile_period') AS wait_sampling_period_ms,
  (SELECT setting = 'on' FROM pg_catalog.pg_settings WHERE name = 'pg_wait_sampling.sample_cpu') AS wait_sampling_cpu,
  (SELECT setting = 'on' FROM pg_catalog.pg_settings WHERE name = 'pg_wait_sampling.profile_pid') AS wait_sampling_by_pid,
  coalesce((SELECT has_function_privilege(p.oid, 'EXECUTE') FROM pg_catalog.pg_proc p
    JOIN pg_catalog.pg_extension e ON e.extnamespace = p.pronamespace AND e.extname = 'pg_wait_sampling'
    WHERE p.proname = 'pg_wait_sampling_get_profile' LIMIT 1), false) AS wait_sampling_allowed,
  current_user AS role_name,
  current_database() AS database,
  (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())::bigint AS database_oid
