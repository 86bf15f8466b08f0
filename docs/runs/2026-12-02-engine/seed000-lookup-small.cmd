$ uds-migrate bench --compose compose.yml --compose engine.yml --client jdbc --format json (in the seed000 project, set up by scripts/bench-headlines.sh)
rc=0
