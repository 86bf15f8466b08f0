-- Data for lookup-small: three tables of 100 rows each. Plain SQL that
-- psql runs as is (compose target) and uds-migrate runs through pgx.
DROP TABLE IF EXISTS uds_bench_small_a, uds_bench_small_b, uds_bench_small_c;
CREATE TABLE uds_bench_small_a (id int PRIMARY KEY, name text NOT NULL, qty int NOT NULL);
CREATE TABLE uds_bench_small_b (id int PRIMARY KEY, label text NOT NULL, price numeric(10,2) NOT NULL);
CREATE TABLE uds_bench_small_c (id int PRIMARY KEY, code text NOT NULL, created timestamptz NOT NULL);
INSERT INTO uds_bench_small_a SELECT g, md5(g::text), (g * 37) % 101 FROM generate_series(1, 100) g;
INSERT INTO uds_bench_small_b SELECT g, 'item-' || g, ((g * 53) % 997) / 10.0 FROM generate_series(1, 100) g;
INSERT INTO uds_bench_small_c SELECT g, upper(substr(md5((g * 7)::text), 1, 8)), timestamptz '2024-01-01' + ((g * 61) % 100) * interval '1 hour' FROM generate_series(1, 100) g;
ANALYZE uds_bench_small_a, uds_bench_small_b, uds_bench_small_c;
