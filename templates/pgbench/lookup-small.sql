-- lookup-small: primary-key lookups on three 100-row tables, each query
-- with its own ORDER BY, so the planner and the sort differ per statement.
-- Round trips dominate: this is where a socket's saved microseconds show.
\set a random(1, 100)
SELECT id, name, qty FROM uds_bench_small_a WHERE id = :a ORDER BY name;
\set b random(1, 98)
SELECT id, label, price FROM uds_bench_small_b WHERE id IN (:b, :b + 1, :b + 2) ORDER BY price DESC;
\set c random(1, 96)
SELECT id, code, created FROM uds_bench_small_c WHERE id BETWEEN :c AND :c + 4 ORDER BY created, id;
