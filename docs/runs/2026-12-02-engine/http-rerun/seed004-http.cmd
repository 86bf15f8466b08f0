$ uds-migrate bench http --compose compose.yaml --compose engine.yml --format json (in the seed004 project, set up by scripts/bench-headlines.sh)
rc=0
