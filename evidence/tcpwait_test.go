package evidence

import "testing"

func TestTCPWaitReader(t *testing.T) {
	for _, c := range []struct {
		key, script string
		want        bool
	}{
		{"POSTGRES_HOST", "wait-for-it \"${POSTGRES_HOST}:${POSTGRES_PORT}\" -t 30\n", true}, // cookiecutter-django
		{"DB_HOST", "until nc -z \"$DB_HOST\" 5432; do sleep 1; done\n", true},
		{"DB_HOST", "dockerize -wait tcp://$DB_HOST:5432\n", true},
		{"DB_HOST", "exec 3<>/dev/tcp/$DB_HOST/5432\n", true},
		{"DB_HOST", "export URL=postgres://u@${DB_HOST}:5432/app\n", true},
		{"DB_HOST", "until pg_isready -h \"$DB_HOST\"; do sleep 1; done\n", false},
		{"DB_HOST", "psql -h \"$DB_HOST\" -c 'select 1'\n", false},
		{"DB_HOST", "nc -z \"$OTHER_DB_HOST\" 5432\n", false},
	} {
		if _, got := tcpWaitReader.find([]byte(c.script), c.key, nil); got != c.want {
			t.Errorf("%s in %q: TCP use found = %v, want %v", c.key, c.script, got, c.want)
		}
	}
}
