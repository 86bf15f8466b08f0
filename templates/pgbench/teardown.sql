-- Removes every table the bench created (unless --keep-data).
DROP TABLE IF EXISTS uds_bench_small_a, uds_bench_small_b, uds_bench_small_c, uds_bench_large;
