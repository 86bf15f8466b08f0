-- heavy: a full sort of the :rows-row table read at a large OFFSET, about a
-- second per query on 1,000,000 rows. Server work dwarfs the round trip, so
-- no transport difference is expected.
\set off random(:rows / 4, :rows / 2)
SELECT id, k, pad FROM uds_bench_large ORDER BY md5(pad || id) OFFSET :off LIMIT 10;
