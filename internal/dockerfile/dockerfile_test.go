package dockerfile

import "testing"

func TestCopySources(t *testing.T) {
	got := CopySources([]byte("FROM x AS b\nCOPY --from=b /a /a\nCOPY --chown=1:1 req.txt \\\n  src/ /srv/\nADD [\"a b\", \"/x\"]\nADD https://e/x /y\n# COPY hidden /z\n"))
	want := []string{"req.txt", "src", "a b"}
	if len(got) != len(want) {
		t.Fatalf("got %q; want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %q; want %q", got, want)
		}
	}
}

// TestFromAndUser: the last stage's FROM and USER, instructions split over
// continuation lines read whole, comments ignored.
func TestFromAndUser(t *testing.T) {
	df := []byte("FROM golang:1 AS build\nUSER builder\n# FROM commented\nFROM \\\n  --platform=linux/amd64 \\\n  postgres:16\nRUN apt-get update \\\n && mkdir -p /run/app\r\nUSER app\n")
	if got := From(df); got != "postgres:16" {
		t.Errorf("From = %q", got)
	}
	if u, mk := User(df, "/run/app"); u != "app" || !mk {
		t.Errorf("User = %q, %v; want app, true", u, mk)
	}
	if u, mk := User([]byte("FROM a\nUSER x\nFROM b\n"), "/run/app"); u != "" || mk {
		t.Errorf("a new stage keeps the user of the one before: %q, %v", u, mk)
	}
	if got := From([]byte("ARG V=16\nFROM postgres:${V}\n")); got != "" {
		t.Errorf("From with a build argument = %q, want \"\"", got)
	}
}

func TestPath(t *testing.T) {
	for _, c := range []struct{ ctx, df, want string }{
		{"/p/app", "", "/p/app/Dockerfile"},
		{"/p/app", "docker/Dockerfile.prod", "/p/app/docker/Dockerfile.prod"},
		{"/p/app", "/elsewhere/Dockerfile", "/elsewhere/Dockerfile"},
	} {
		if got := Path(c.ctx, c.df); got != c.want {
			t.Errorf("Path(%q, %q) = %q, want %q", c.ctx, c.df, got, c.want)
		}
	}
}

// TestWorkdir: the WORKDIR a container of the built stage starts in, with
// relative WORKDIRs joined to the one before and a stage FROM an earlier
// stage starting from that stage's; "" where only the base image knows.
func TestWorkdir(t *testing.T) {
	for _, c := range []struct{ df, target, want string }{
		{"FROM ruby:3.3\nWORKDIR /srv\nCOPY . .\n", "", "/srv"},
		{"FROM ruby:3.3\nCOPY . .\n", "", ""},
		{"FROM ruby:3.3\nWORKDIR /srv\nWORKDIR app/\n", "", "/srv/app"},
		{"FROM ruby:3.3\nWORKDIR app\n", "", ""},
		{"FROM ruby:3.3\nENV APP=/srv\nWORKDIR $APP\n", "", ""},
		{"FROM golang:1 AS build\nWORKDIR /src\nFROM debian\nCOPY --from=build /src/x /x\n", "", ""},
		{"FROM golang:1 AS build\nWORKDIR /src\nFROM build AS test\nWORKDIR t\nFROM Build\n", "", "/src"},
		{"FROM golang:1 AS build\nWORKDIR /src\nFROM build AS test\nWORKDIR t\nFROM debian AS final\nWORKDIR /app\n", "test", "/src/t"},
		{"FROM ruby:3.3\nWORKDIR \"/srv/app\"\n", "", "/srv/app"},
		{"from --platform=linux/amd64 ruby:3.3 as web\r\nworkdir \\\n  /srv/./web/\n", "", "/srv/web"},
	} {
		if got := Workdir([]byte(c.df), c.target); got != c.want {
			t.Errorf("Workdir(%q, %q) = %q, want %q", c.df, c.target, got, c.want)
		}
	}
}
