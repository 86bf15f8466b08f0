package hostvar

import (
	"os"
	"path/filepath"
	"testing"
)

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

// TestPublishedContent: the appsettings*.json a `dotnet publish` copies
// into its output (Web SDK: every *.json is content; plain SDK: an item
// with CopyTo...Directory), and nothing else.
func TestPublishedContent(t *testing.T) {
	const web = `<Project Sdk="Microsoft.NET.Sdk.Web"></Project>`
	for _, c := range []struct {
		name       string
		dockerfile string
		files      map[string]string
		file       string
		want       bool
	}{
		{"web sdk publish", "RUN dotnet publish -c release -o /app", map[string]string{"Api/Api.csproj": web}, "Api/appsettings.json", true},
		{"environment file", "RUN dotnet publish -o /out", map[string]string{"Api/Api.csproj": web}, "Api/appsettings.Production.json", true},
		{"dotnet build", "RUN dotnet build -o /out", map[string]string{"Api/Api.csproj": web}, "Api/appsettings.json", true},
		{"no publish", "RUN dotnet restore", map[string]string{"Api/Api.csproj": web}, "Api/appsettings.json", false},
		{"no project beside", "RUN dotnet publish -o /app", map[string]string{"Api/Api.csproj": web}, "appsettings.json", false},
		{"other json", "RUN dotnet publish -o /app", map[string]string{"Api/Api.csproj": web}, "Api/config.json", false},
		{"named project", `RUN dotnet publish "Api/Api.csproj" -c Release -o /app`, map[string]string{"Api/Api.csproj": web, "Tests/Tests.csproj": web}, "Api/appsettings.json", true},
		{"another project", `RUN dotnet publish "Api/Api.csproj" -c Release -o /app`, map[string]string{"Api/Api.csproj": web, "Tests/Tests.csproj": web}, "Tests/appsettings.json", false},
		{"plain sdk", "RUN dotnet publish -o /app", map[string]string{"W/W.csproj": `<Project Sdk="Microsoft.NET.Sdk"></Project>`}, "W/appsettings.json", false},
		{"plain sdk, copied", "RUN dotnet publish -o /app", map[string]string{"W/W.csproj": `<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><None Update="appsettings.json"><CopyToOutputDirectory>PreserveNewest</CopyToOutputDirectory></None></ItemGroup></Project>`}, "W/appsettings.json", true},
		{"plain sdk, attribute", "RUN dotnet publish -o /app", map[string]string{"W/W.csproj": `<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><Content Include="appsettings.json" CopyToPublishDirectory="Always" /></ItemGroup></Project>`}, "W/appsettings.json", true},
		{"plain sdk, never", "RUN dotnet publish -o /app", map[string]string{"W/W.csproj": `<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><None Include="appsettings.json" CopyToPublishDirectory="Never" /><None Include="other.json" CopyToPublishDirectory="Always" /></ItemGroup></Project>`}, "W/appsettings.json", false},
	} {
		dir := t.TempDir()
		for name, body := range c.files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := publishedContent([]byte("FROM x AS build\n"+c.dockerfile+"\n"), os.ReadFile)(filepath.Join(dir, c.file)); got != c.want {
			t.Errorf("%s: publishedContent(%s) = %v, want %v", c.name, c.file, got, c.want)
		}
	}
}

// TestPlainBase: Docker Official Images (no ONBUILD since the onbuild
// variants were removed) and scratch are plain; other images may copy
// their child's context with ONBUILD.
func TestPlainBase(t *testing.T) {
	for ref, want := range map[string]bool{
		"ruby:3.3-alpine": true, "python": true, "docker.io/library/node:22": true, "library/golang:1.23": true, "scratch": true,
		"node:onbuild": false, "golang:1.7-onbuild": false,
		"ghcr.io/ledermann/rails-base-final:3.3.5-alpine": false, "acme/python-app:3": false,
		"mcr.microsoft.com/dotnet/aspnet:8.0": false, "registry:5000/ruby:3": false, "localhost/ruby": false,
	} {
		if got := plainBase(ref); got != want {
			t.Errorf("plainBase(%q) = %v, want %v", ref, got, want)
		}
	}
}
