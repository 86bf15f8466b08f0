package hostvar

import "testing"

// TestBuildInput: what a build stage's files still say about the image it
// makes: manifests, compiled or bundled code, JVM resources; not scripts or
// configuration files.
func TestBuildInput(t *testing.T) {
	for rel, want := range map[string]bool{
		"go.mod": true, "apps/web/package.json": true, "pom.xml": true, "Cargo.toml": true, "requirements.txt": true,
		"main.go": true, "config/db.go": true, "src/index.ts": true, "app/settings.py": true, "prisma/schema.prisma": true,
		"src/main/resources/application.properties": true, "api/src/main/resources/application.yml": true,
		"entrypoint.sh": false, "scripts/wait-for-it.sh": false, "Dockerfile": false, "config.default.yml": false,
		"config/compose.yaml": false, ".env": false, "settings.json": false, "application.properties": false,
	} {
		if got := BuildInput(rel); got != want {
			t.Errorf("BuildInput(%q) = %v, want %v", rel, got, want)
		}
	}
}
