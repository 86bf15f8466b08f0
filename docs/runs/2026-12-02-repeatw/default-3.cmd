$ uds-migrate bench --format json
rc=0
