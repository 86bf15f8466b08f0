package evidence

import (
	"slices"
	"testing"
)

func TestDefaults(t *testing.T) {
	for _, c := range []struct {
		name, file, text string
		want             []Default // File is c.file
	}{
		{"os.getenv", "app/db.py", "import os\nh = os.getenv(\"POSTGRES_HOST\", \"postgres\")\n", []Default{{Key: "POSTGRES_HOST", Value: "postgres", Line: 2}}},
		{"environ.get, single quotes", "s.py", "HOST = os.environ.get('DB_HOST', 'db')\n", []Default{{Key: "DB_HOST", Value: "db", Line: 1}}},
		{"decouple default=", "s.py", "HOST = config('DB_HOST', default='db', cast=str)\n", []Default{{Key: "DB_HOST", Value: "db", Line: 1}}},
		{"django-environ", "s.py", "x = env.str(\"H\", \"pg\")\ny = env(\"P\", default=\"5432\")\n", []Default{{Key: "H", Value: "pg", Line: 1}, {Key: "P", Value: "5432", Line: 2}}},
		{"no default", "s.py", "h = os.getenv(\"H\")\nk = os.environ[\"K\"]\n", nil},
		{"not a default: getenv inside a longer name", "s.py", "h = mygetenv(\"H\", \"db\")\n", nil},
		{"a computed default", "s.py", "h = os.getenv(\"H\", other)\n", nil},
		{"ruby fetch with block", "config/initializers/db.rb", "host = ENV.fetch('DB_HOST') { 'db' }\n", []Default{{Key: "DB_HOST", Value: "db", Line: 1}}},
		{"ruby fetch, second argument", "a.rb", "ENV.fetch(\"DB_HOST\", \"db\")\n", []Default{{Key: "DB_HOST", Value: "db", Line: 1}}},
		{"ruby ||", "a.rb", "h = ENV[\"DB_HOST\"] || \"db\"\n", []Default{{Key: "DB_HOST", Value: "db", Line: 1}}},
		{"node ||", "src/db.js", "const pool = new Pool({\n  host: process.env.PGHOST_APP || 'postgres',\n})\n", []Default{{Key: "PGHOST_APP", Value: "postgres", Line: 2}}},
		{"node ?? with brackets", "db.ts", "const h = process.env[\"DB_HOST\"] ?? `db`\n", []Default{{Key: "DB_HOST", Value: "db", Line: 1}}},
		{"go cmp.Or", "main.go", "host := cmp.Or(os.Getenv(\"DB_HOST\"), \"db\")\n", []Default{{Key: "DB_HOST", Value: "db", Line: 1}}},
		{"a language not read", "a.php", "$h = getenv('DB_HOST') ?: 'db';\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, c.file, c.text)
			got := Defaults(Scope{ProjectDir: dir, Roots: []string{dir}})
			for i := range c.want {
				c.want[i].File = c.file
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestEnvKeys(t *testing.T) {
	df := "FROM python:3.12\n# ENV COMMENTED=1\nENV A=1 B=\"two words\" \\\n    C=3\nenv LEGACY value with spaces\nARG NOT_RUNTIME=1\n"
	got := EnvKeys([]byte(df))
	want := []string{"A", "B", "C", "LEGACY"}
	if !slices.Equal(got, want) {
		t.Errorf("EnvKeys = %q, want %q", got, want)
	}
}
