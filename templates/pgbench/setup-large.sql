-- Data for lookup-large and heavy: one table of :rows rows (psql -v rows=N;
-- uds-migrate substitutes the same variable). 1,000,000 rows take about
-- 75 MB with the primary key. g::bigint: g * 7919 overflows int4 from
-- g = 271,182 on, which failed the default 1,000,000 rows with "integer
-- out of range".
DROP TABLE IF EXISTS uds_bench_large;
CREATE TABLE uds_bench_large (id bigint PRIMARY KEY, k int NOT NULL, pad text NOT NULL);
INSERT INTO uds_bench_large SELECT g, (g::bigint * 7919) % 100003, md5(g::text) FROM generate_series(1, :rows) g;
ANALYZE uds_bench_large;
