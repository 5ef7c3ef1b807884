-- Only while a setting waits for a restart: the value the next start takes,
-- from the configuration files as they are now (pg_file_settings: the last
-- line read wins), or with no line the built-in default. pg_file_settings
-- is a superuser's unless granted: denied, the pending value stays unknown.
-- $1: the names of the settings that wait.
SELECT /* inflight:file_settings */ s.name, f.setting AS file_setting, s.boot_val
FROM pg_catalog.pg_settings s
LEFT JOIN (SELECT DISTINCT ON (fs.name) fs.name, fs.setting
           FROM pg_catalog.pg_file_settings fs
           WHERE fs.name = ANY($1::text[])
           ORDER BY fs.name, fs.seqno DESC) f ON f.name = s.name
WHERE s.name = ANY($1::text[])
