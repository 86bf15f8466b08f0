package evidence

import "testing"

// The files of mjftw/typescript-realworld-backend (trial 19 #14),
// shortened: the pool module and the configuration module it imports.
const (
	realworldDBConfig = `import { Pool } from 'pg';
import { dbHost, dbPort, dbName, dbUser, dbPass } from '../config';

const pool = new Pool({
    host: dbHost,
    port: dbPort,
    database: dbName,
    user: dbUser,
    password: dbPass,
});

export default pool;
`
	realworldConfig = `import dotenv from 'dotenv';

export const dbName = process.env.DB_NAME as string;
export const dbHost = process.env.DB_HOST || 'localhost';
export const dbPort = parseInt(process.env.DB_PORT || '5432');
`
)

func TestNodePGImported(t *testing.T) {
	project := map[string]string{"package.json": `{"dependencies": {"pg": "^8.5.1", "dotenv": "8"}}`,
		"src/db/dbconfig.ts": realworldDBConfig, "src/config.ts": realworldConfig}
	commonJS := map[string]string{"package.json": `{"dependencies": {"pg": "8"}}`,
		"lib/db.js":     "const pg = require('pg')\nconst config = require('./config')\nmodule.exports = new pg.Pool({ host: config.dbHost, port: 5432 })\n",
		"lib/config.js": "exports.dbHost = process.env.DB_HOST\n"}
	runShapes(t, "node-postgres (pg)", []shapeCase{
		{"imported constant", project, "DB_HOST", nil, "src/config.ts", 4},
		{"another variable", project, "DB_NAME", nil, "", 0},
		{"PGSSLMODE require", project, "DB_HOST", map[string]string{"PGSSLMODE": "require"}, "", 0},
		{"ssl on the options", replaced(t, project, "src/db/dbconfig.ts", "database:", "ssl: true,\n    database:"), "DB_HOST", nil, "", 0},
		{"name not imported", replaced(t, project, "src/db/dbconfig.ts", "dbHost, dbPort", "dbPort"), "DB_HOST", nil, "", 0},
		{"no pg in the manifest", replaced(t, project, "package.json", `"pg": "^8.5.1", `, ""), "DB_HOST", nil, "", 0},
		{"not node-postgres", replaced(t, project, "src/db/dbconfig.ts", "from 'pg'", "from 'mysql2'"), "DB_HOST", nil, "", 0},
		{"not exported", replaced(t, project, "src/config.ts", "export const dbHost", "const dbHost"), "DB_HOST", nil, "", 0},
		{"module member, CommonJS", commonJS, "DB_HOST", nil, "lib/config.js", 1},
		{"module member of another module", replaced(t, commonJS, "lib/db.js", "config.dbHost", "settings.dbHost"), "DB_HOST", nil, "", 0},
	})
}
