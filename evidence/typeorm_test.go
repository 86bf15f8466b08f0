package evidence

import (
	"strings"
	"testing"
)

// The files of vndevteam/nestjs-boilerplate @ b6a5780e (trial 12 #20),
// shortened: the namespace, the TypeORM options factory that reads it,
// and the manifest.
const (
	nestDatabaseConfig = `import { registerAs } from '@nestjs/config';
import { DatabaseConfig } from './database-config.type';

export default registerAs<DatabaseConfig>('database', () => {
  validateConfig(process.env, EnvironmentVariablesValidator);

  return {
    type: process.env.DATABASE_TYPE,
    host: process.env.DATABASE_HOST,
    port: process.env.DATABASE_PORT
      ? parseInt(process.env.DATABASE_PORT, 10)
      : 5432,
    sslEnabled: process.env.DATABASE_SSL_ENABLED === 'true',
    rejectUnauthorized: process.env.DATABASE_REJECT_UNAUTHORIZED === 'true',
    ca: process.env.DATABASE_CA,
  };
});
`
	nestTypeORMService = `import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModuleOptions, TypeOrmOptionsFactory } from '@nestjs/typeorm';

@Injectable()
export class TypeOrmConfigService implements TypeOrmOptionsFactory {
  constructor(private configService: ConfigService<AllConfigType>) {}

  createTypeOrmOptions(): TypeOrmModuleOptions {
    return {
      type: this.configService.get('database.type', { infer: true }),
      host: this.configService.get('database.host', { infer: true }),
      port: this.configService.get('database.port', { infer: true }),
      ssl: this.configService.get('database.sslEnabled', { infer: true })
        ? {
            rejectUnauthorized: this.configService.get(
              'database.rejectUnauthorized',
              { infer: true },
            ),
            ca:
              this.configService.get('database.ca', { infer: true }) ??
              undefined,
          }
        : undefined,
    } as TypeOrmModuleOptions;
  }
}
`
	nestPackageJSON = `{"dependencies": {"@nestjs/config": "^3.3.0", "@nestjs/typeorm": "^10.0.2", "pg": "^8.13.1", "typeorm": "^0.3.20"}}`
)

func TestTypeORM(t *testing.T) {
	env := map[string]string{"DATABASE_TYPE": "postgres", "DATABASE_SSL_ENABLED": "false", "DATABASE_REJECT_UNAUTHORIZED": "false", "DATABASE_CA": ""}
	with := func(k, v string) map[string]string {
		out := map[string]string{}
		for a, b := range env {
			out[a] = b
		}
		out[k] = v
		return out
	}
	nest := map[string]string{
		"package.json":                           nestPackageJSON,
		"src/database/config/database.config.ts": nestDatabaseConfig,
		"src/database/typeorm-config.service.ts": nestTypeORMService,
	}
	dataSource := map[string]string{
		"package.json": `{"dependencies": {"pg": "8.13.1", "typeorm": "0.3.20"}}`,
		"src/data-source.ts": "import { DataSource } from 'typeorm';\n\nexport const AppDataSource = new DataSource({\n  type: 'postgres',\n" +
			"  url: process.env.DATABASE_URL,\n  host: process.env.DATABASE_HOST,\n  ssl:\n    process.env.DATABASE_SSL_ENABLED === 'true'\n      ? { rejectUnauthorized: false }\n      : undefined,\n});\n",
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		env   map[string]string
		file  string // "" = no verdict
		line  int
	}{
		{"namespace chain", nest, env, "src/database/typeorm-config.service.ts", 12},
		{"no pg in the manifest", replaced(t, nest, "package.json", `"pg": "^8.13.1", `, ""), env, "", 0},
		{"pg only as a dev dependency", replaced(t, nest, "package.json", `"pg": "^8.13.1", `, `"x": "1"}, "devDependencies": {"pg": "^8.13.1"`), env, "", 0},
		{"no typeorm in the manifest", map[string]string{"package.json": `{"dependencies": {"@nestjs/config": "1", "pg": "8"}}`,
			"src/database/config/database.config.ts": nestDatabaseConfig, "src/database/typeorm-config.service.ts": nestTypeORMService}, env, "", 0},
		{"type mysql", nest, with("DATABASE_TYPE", "mysql"), "", 0},
		{"type unset", nest, with("DATABASE_TYPE", ""), "", 0},
		{"ssl on", nest, with("DATABASE_SSL_ENABLED", "true"), "", 0},
		{"a CA set", nest, with("DATABASE_CA", "/ca.pem"), "", 0},
		{"PGSSLMODE require", nest, with("PGSSLMODE", "require"), "", 0},
		{"PGSSLMODE disable", nest, with("PGSSLMODE", "disable"), "src/database/typeorm-config.service.ts", 12},
		{"another namespace", replaced(t, nest, "src/database/typeorm-config.service.ts", "'database.host'", "'db.host'"), env, "", 0},
		{"namespace host from another variable", nest, env, "", 0},
		{"the factory imports no typeorm", replaced(t, nest, "src/database/typeorm-config.service.ts", "from '@nestjs/typeorm'", "from './types'"), env, "", 0},
		{"namespace without @nestjs/config", replaced(t, nest, "src/database/config/database.config.ts", "from '@nestjs/config'", "from './register'"), env, "", 0},
		{"DataSource module", dataSource, env, "src/data-source.ts", 6},
		{"DataSource with DATABASE_URL set", dataSource, with("DATABASE_URL", "postgres://u@db/x"), "", 0},
		{"DataSource type mysql", replaced(t, dataSource, "src/data-source.ts", "'postgres'", "'mysql'"), env, "", 0},
		{"DataSource ssl true", replaced(t, dataSource, "src/data-source.ts", "process.env.DATABASE_SSL_ENABLED === 'true'\n      ? { rejectUnauthorized: false }\n      : undefined", "true"), env, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range c.files {
				write(t, dir, name, text)
			}
			key := "DATABASE_HOST"
			if c.name == "namespace host from another variable" {
				key = "DATABASE_TYPE"
			}
			v, ok := Find(Scope{ProjectDir: dir, Roots: []string{dir}, Env: c.env}, key)
			if c.file == "" {
				if ok {
					t.Errorf("got %+v; want no verdict", v)
				}
				return
			}
			if !ok || !v.Directory || v.File != c.file || v.Line != c.line || v.Driver != "TypeORM (node-postgres)" {
				t.Errorf("got %+v, %v; want a directory at %s:%d", v, ok, c.file, c.line)
			}
		})
	}
	// The reason names the namespace line the host comes from.
	dir := t.TempDir()
	for name, text := range nest {
		write(t, dir, name, text)
	}
	v, _ := Find(Scope{ProjectDir: dir, Roots: []string{dir}, Env: env}, "DATABASE_HOST")
	if want := "database.host, which src/database/config/database.config.ts:9 sets from DATABASE_HOST"; !strings.Contains(v.Reason, want) {
		t.Errorf("reason %q lacks %q", v.Reason, want)
	}
}
