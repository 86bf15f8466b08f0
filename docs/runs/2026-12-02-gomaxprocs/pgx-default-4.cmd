/work/main/docs/runs/2026-12-02-gomaxprocs/../.uds-migrate-gomaxprocs bench
