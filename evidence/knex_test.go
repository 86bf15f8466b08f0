package evidence

import "testing"

// The files of nickjj/docker-node-example (trial 19 #4), shortened: the
// knexfile, the configuration module whose config.pg it names, and the
// manifest.
const (
	knexfileJS = `const config = require('./config/index');

const common = {
  client: 'pg',
  connection: process.env.DATABASE_URL || config.pg,
  pool: {
    min: 2,
    max: 10,
  },
};

module.exports = common;
`
	knexConfigJS = `const config = module.exports;

config.express = {
  port: process.env.PORT || 8000,
};

config.pg = {
  user: process.env.POSTGRES_USER || 'hello',
  password: process.env.POSTGRES_PASSWORD || 'password',
  host: process.env.POSTGRES_HOST || 'postgres',
  port: process.env.POSTGRES_PORT || '5432',
  database: process.env.POSTGRES_DB || 'hello',
};
`
	knexPackageJSON = `{"dependencies": {"express": "5.1.0", "knex": "3.2.10", "pg": "8.20.0"}}`
	knexInlineTS    = `import type { Knex } from 'knex';

const config: Knex.Config = {
  client: 'postgresql',
  connection: {
    host: process.env.DB_HOST,
    database: 'app',
  },
};
export default config;
`
)

func TestKnex(t *testing.T) {
	project := map[string]string{"package.json": knexPackageJSON, "knexfile.js": knexfileJS, "config/index.js": knexConfigJS}
	inline := map[string]string{"package.json": knexPackageJSON, "knexfile.ts": knexInlineTS}
	runShapes(t, "knex (node-postgres)", []shapeCase{
		{"config object in another module", project, "POSTGRES_HOST", nil, "config/index.js", 10},
		{"DATABASE_URL set replaces the object", project, "POSTGRES_HOST", map[string]string{"DATABASE_URL": "postgres://u@db/x"}, "", 0},
		{"DATABASE_URL empty", project, "POSTGRES_HOST", map[string]string{"DATABASE_URL": ""}, "config/index.js", 10},
		{"PGSSLMODE require", project, "POSTGRES_HOST", map[string]string{"PGSSLMODE": "require"}, "", 0},
		{"ssl on the object", replaced(t, project, "config/index.js", "database:", "ssl: true,\n  database:"), "POSTGRES_HOST", nil, "", 0},
		{"ssl false on the object", replaced(t, project, "config/index.js", "database:", "ssl: false,\n  database:"), "POSTGRES_HOST", nil, "config/index.js", 10},
		{"client mysql", replaced(t, project, "knexfile.js", "'pg'", "'mysql2'"), "POSTGRES_HOST", nil, "", 0},
		{"no pg in the manifest", replaced(t, project, "package.json", `, "pg": "8.20.0"`, ""), "POSTGRES_HOST", nil, "", 0},
		{"no knex in the manifest", replaced(t, project, "package.json", `"knex": "3.2.10", `, ""), "POSTGRES_HOST", nil, "", 0},
		{"connection names another object", replaced(t, project, "knexfile.js", "config.pg", "config.express"), "POSTGRES_HOST", nil, "", 0},
		{"connection is a call", replaced(t, project, "knexfile.js", "config.pg", "buildConnection()"), "POSTGRES_HOST", nil, "", 0},
		{"another variable", project, "POSTGRES_USER", nil, "", 0},
		{"inline object", inline, "DB_HOST", nil, "knexfile.ts", 6},
		{"inline object, host outside it", replaced(t, inline, "knexfile.ts", "host: process.env.DB_HOST,\n", "},\n  other: { host: process.env.DB_HOST,\n"), "DB_HOST", nil, "", 0},
		{"bound with a type", map[string]string{"package.json": knexPackageJSON,
			"src/db.ts":     "import knex from 'knex';\nimport { dbConfig } from './config';\nexport const db = knex({ client: 'pg', connection: dbConfig });\n",
			"src/config.ts": "export const dbConfig: Knex.PgConnectionConfig = {\n  host: process.env.PGHOST_APP,\n};\n"}, "PGHOST_APP", nil, "src/config.ts", 2},
	})
}
