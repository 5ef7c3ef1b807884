-- Now and then: the round trip of a statement that costs the server
-- nothing, the baseline a statement's own server time is told from when
-- pg_stat_statements cannot say.
SELECT /* inflight:ping */ 1 AS one
