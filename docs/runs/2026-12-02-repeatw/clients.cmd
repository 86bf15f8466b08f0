$ uds-migrate bench --client pgbench,pgx --format json
rc=0
