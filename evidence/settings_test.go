package evidence

import "testing"

// TestFindSetting: a configuration file's setting read through viper or
// koanf into a pgx or lib/pq host, the driver from the file's import or,
// for a keyword DSN, the module's go.mod; nothing else.
func TestFindSetting(t *testing.T) {
	const viperImp = "import (\n\t\"fmt\"\n\t\"github.com/spf13/viper\"\n)\n"
	const dsn = "func PG() string {\n\treturn fmt.Sprintf(\"host=%s port=%d user=%s \"+\n\t\t\"password=%s dbname=%s\",\n\t\tviper.GetString(\"db.host\"),\n\t\tviper.GetInt(\"db.port\"), u, p, n)\n}\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		key   string
		file  string
		line  int
		drv   string // "" = no verdict
	}{
		{"ente: keyword DSN, lib/pq in go.mod", map[string]string{"go.mod": "module m\n\nrequire (\n\tgithub.com/lib/pq v1.8.0\n)\n", "pkg/config.go": "package config\n" + viperImp + dsn}, "db.host", "pkg/config.go", 7, "lib/pq"},
		{"key read case-insensitively", map[string]string{"go.mod": "module m\nrequire github.com/jackc/pgx/v5 v5.5.0\n", "c.go": "package c\n" + viperImp + dsn}, "DB.Host", "c.go", 7, "pgx"},
		{"gorm's driver is pgx", map[string]string{"go.mod": "module m\nrequire gorm.io/driver/postgres v1.6.2\n", "c.go": "package c\n" + viperImp + dsn}, "db.host", "c.go", 7, "pgx"},
		{"no driver in the module or the file", map[string]string{"go.mod": "module m\nrequire github.com/go-sql-driver/mysql v1.8.0\n", "c.go": "package c\n" + viperImp + dsn}, "db.host", "", 0, ""},
		{"another key", map[string]string{"go.mod": "module m\nrequire github.com/lib/pq v1.8.0\n", "c.go": "package c\n" + viperImp + dsn}, "cache.host", "", 0, ""},
		{"not viper", map[string]string{"go.mod": "module m\nrequire github.com/lib/pq v1.8.0\n", "c.go": "package c\nimport \"fmt\"\n" + dsn}, "db.host", "", 0, ""},
		{"a host=%s that is no libpq DSN, driver only in go.mod", map[string]string{"go.mod": "module m\nrequire github.com/lib/pq v1.8.0\n", "c.go": "package c\n" + viperImp + "var s = fmt.Sprintf(\"host=%s\", viper.GetString(\"db.host\"))\n"}, "db.host", "", 0, ""},
		{"pgx config Host from koanf, driver imported", map[string]string{"c.go": "package c\nimport (\n\t\"github.com/knadh/koanf/v2\"\n\t\"github.com/jackc/pgx/v5\"\n)\nfunc f(k *koanf.Koanf, cfg *pgx.ConnConfig) {\n\tcfg.Host = k.String(\"database.host\")\n}\n"}, "database.host", "c.go", 7, "pgx"},
		{"Host: without the driver imported", map[string]string{"go.mod": "module m\nrequire github.com/lib/pq v1.8.0\n", "c.go": "package c\n" + viperImp + "var o = redis.Options{Host: viper.GetString(\"db.host\")}\n"}, "db.host", "", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range c.files {
				write(t, dir, name, text)
			}
			v, ok := FindSetting(Scope{ProjectDir: dir, Roots: []string{dir}}, c.key)
			if ok != (c.drv != "") || ok && (v.Driver != c.drv || v.File != c.file || v.Line != c.line || !v.Directory) {
				t.Errorf("got %+v, %v; want %s at %s:%d", v, ok, c.drv, c.file, c.line)
			}
		})
	}
}
