-- lookup-large: primary-key lookups in a :rows-row table (pgbench -D rows=N),
-- sorted by a different column each time.
\set id random(1, :rows - 10)
SELECT id, k, pad FROM uds_bench_large WHERE id = :id ORDER BY k;
\set id random(1, :rows - 10)
SELECT id, k, pad FROM uds_bench_large WHERE id BETWEEN :id AND :id + 9 ORDER BY pad DESC;
\set id random(1, :rows - 10)
SELECT id, k, pad FROM uds_bench_large WHERE id BETWEEN :id AND :id + 9 ORDER BY k, id;
