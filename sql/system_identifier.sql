-- Once per connection, where the role may run pg_control_system()
-- (capabilities.sql says; PUBLIC may by default, an administrator can
-- revoke it): the cluster's identity, so that two servers at one address in
-- turn (a cluster rebuilt, or upgraded) keep histories of their own.
SELECT /* inflight:system_identifier */ system_identifier::text AS system_identifier
FROM pg_catalog.pg_control_system()
