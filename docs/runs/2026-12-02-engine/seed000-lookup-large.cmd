$ uds-migrate bench --compose compose.yml --compose engine.yml --client jdbc --workload lookup-large --rounds 20 --duration 1s --format json (in the seed000 project, set up by scripts/bench-headlines.sh)
rc=0
