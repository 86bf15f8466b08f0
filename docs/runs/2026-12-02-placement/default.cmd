/work/main/docs/runs/2026-12-02-placement/../.uds-migrate-placement bench
