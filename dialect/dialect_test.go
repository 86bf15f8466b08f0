package dialect

import "testing"

// TestRecogniseOrder: a value is recognised by the first dialect whose form
// it has, a Celery URL before the libpq URI inside it and a PDO DSN before
// the Npgsql grammar it shares.
func TestRecogniseOrder(t *testing.T) {
	for val, want := range map[string]string{
		"db+postgresql://u@db/app":              Celery,
		"postgresql://u@db/app":                 URI,
		"pgsql:host=db;port=5432;dbname=app":    PDO,
		"Host=db;Port=5432;Database=app":        Npgsql,
		"jdbc:postgresql://db/app":              JDBC,
		"r2dbc:postgresql://db/app":             R2DBC,
		"host=db port=5432 dbname=app user=app": DSN,
		"http://db:8080":                        "",
	} {
		_, got, _ := Classify(val)
		if got != want {
			t.Errorf("classify(%q) = %q, want %q", val, got, want)
		}
	}
}
