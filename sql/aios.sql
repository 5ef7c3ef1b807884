-- When a backend is active and the budget allows: the AIO handles in use,
-- aggregated per issuing pid. pg_aios walks every handle slot (about
-- max_connections x io_max_concurrency) whether or not anything is in
-- flight, so its cost grows with the server's size: ~0.08 ms a read at 100
-- x 23, ~1.7 ms at 1000 x 64 here. Any column may be NULL.
SELECT /* inflight:aios */ pid,
       json_agg(json_build_array(state, operation, length, f_sync, target_desc)) AS handles
FROM pg_catalog.pg_aios
GROUP BY pid
