package evidence

import (
	"slices"
	"strings"
	"testing"
)

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

func TestFindInCommand(t *testing.T) {
	for _, c := range []struct {
		key, text string
		want      bool
	}{
		{"PGHOST", `sh -c until nc -z $PGHOST 5432; do sleep 1; done; exec /app/run`, true},
		{"PGHOST", `CMD-SHELL nc -z $PGHOST 5432`, true},
		{"DB_HOST", `sh -c dockerize -wait tcp://${DB_HOST}:5432 && exec /app/run`, true},
		{"PGHOST", `java -Dspring.datasource.url=jdbc:postgresql://${PGHOST}:5432/app -jar app.jar`, true},
		{"PGHOST", `sh -c until pg_isready -h "$PGHOST"; do sleep 1; done`, false},
		{"PGHOST", `sh -c until nc -z $PGHOSTADDR 5432; do sleep 1; done`, false},
	} {
		if _, got := FindInCommand(c.text, c.key); got != c.want {
			t.Errorf("%s in %q: found = %v, want %v", c.key, c.text, got, c.want)
		}
	}
}

func TestDeclares(t *testing.T) {
	manifests := []string{"pom.xml", "build.gradle", "build.gradle.kts"}
	const pg = "<project><dependencies><dependency><groupId>org.postgresql</groupId></dependency></dependencies></project>"
	for _, c := range []struct {
		name          string
		files         map[string]string
		seen, lacking string
	}{
		{"pom without it", map[string]string{"pom.xml": pg}, "pom.xml", "pom.xml"},
		{"pom with it", map[string]string{"pom.xml": "<groupId>com.kohlschutter.junixsocket</groupId>"}, "pom.xml", ""},
		{"gradle kts without it", map[string]string{"app/build.gradle.kts": "dependencies { runtimeOnly(\"org.postgresql:postgresql\") }"}, "app/build.gradle.kts", "app/build.gradle.kts"},
		{"a shipped jar", map[string]string{"build.gradle": "dependencies { runtimeOnly 'org.postgresql:postgresql' }", "lib/junixsocket-core-2.10.1.jar": ""}, "build.gradle", ""},
		{"no manifest", map[string]string{"app.jar": ""}, "", ""},
		// Trial 12 M5: Maven and Gradle builds of one project; junixsocket
		// in build.gradle only leaves the Maven-built image without it.
		{"two builds, one declares", map[string]string{"pom.xml": pg, "build.gradle": "runtimeOnly 'org.postgresql:postgresql'\nimplementation 'com.kohlschutter.junixsocket:junixsocket-core:2.10.1'"}, "build.gradle pom.xml", "pom.xml"},
		{"two builds, neither", map[string]string{"pom.xml": pg, "build.gradle": "runtimeOnly 'org.postgresql:postgresql'"}, "build.gradle pom.xml", "build.gradle pom.xml"},
		{"two builds, both", map[string]string{"pom.xml": pg + "junixsocket", "build.gradle": "org.postgresql junixsocket"}, "build.gradle pom.xml", ""},
		// a parent pom that names neither and a module that declares both
		{"parent and module", map[string]string{"pom.xml": "<modules><module>app</module></modules>", "app/pom.xml": pg + "junixsocket"}, "app/pom.xml pom.xml", ""},
	} {
		dir := t.TempDir()
		for name, body := range c.files {
			write(t, dir, name, body)
		}
		seen, lacking := Declares(Scope{ProjectDir: dir, Roots: []string{dir}}, manifests, "org.postgresql", "junixsocket")
		slices.Sort(seen)
		slices.Sort(lacking)
		if got := strings.Join(seen, " "); got != c.seen {
			t.Errorf("%s: seen %q, want %q", c.name, got, c.seen)
		}
		if got := strings.Join(lacking, " "); got != c.lacking {
			t.Errorf("%s: lacking %q, want %q", c.name, got, c.lacking)
		}
	}
}
