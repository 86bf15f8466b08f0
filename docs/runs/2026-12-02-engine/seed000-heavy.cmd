$ uds-migrate bench --compose compose.yml --compose engine.yml --client jdbc --workload heavy --rounds 6 --duration 3s --warmup 3s --format json (in the seed000 project, set up by scripts/bench-headlines.sh)
rc=0
