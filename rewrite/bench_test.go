package rewrite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// genCompose writes a compose file of n services in groups of ten: one
// official postgres image and nine clients reaching it, in turn by JDBC URL
// (map form), libpq URI (list form, read by a catalogued image) and keyword DSN, with the anchors,
// comments and unrelated keys real files carry. Every client migrates.
func genCompose(n int) []byte {
	var b strings.Builder
	b.WriteString("# generated for the benchmarks\nx-common: &common\n  restart: unless-stopped\n  logging:\n    driver: json-file\n\nservices:\n")
	for i := 0; i < n; i++ {
		g := i / 10
		db := fmt.Sprintf("db%04d", g)
		if i%10 == 0 {
			fmt.Fprintf(&b, "  %s:\n    <<: *common\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: pw%d\n    volumes:\n      - %s-data:/var/lib/postgresql/data\n", db, g, db)
			continue
		}
		image := fmt.Sprintf("registry.example/app%d:1.0", i%7)
		if i%3 == 1 {
			// A URI is migrated only for a known reader: Miniflux's
			// catalogue entry (lib/pq).
			image = "miniflux/miniflux:2.2"
		}
		fmt.Fprintf(&b, "  app%04d:\n    <<: *common\n    image: %s  # client %d\n", i, image, i)
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "    environment:\n      SPRING_DATASOURCE_URL: jdbc:postgresql://%s:5432/app?ApplicationName=a%d\n      SPRING_PROFILES_ACTIVE: prod\n", db, i)
		case 1:
			fmt.Fprintf(&b, "    environment:\n      - DATABASE_URL=postgres://app:pw@%s:5432/app?sslmode=disable\n      - LOG_LEVEL=info\n", db)
		default:
			fmt.Fprintf(&b, "    environment:\n      PG_DSN: \"host=%s port=5432 dbname=app user=app\"\n", db)
		}
		fmt.Fprintf(&b, "    depends_on:\n      - %s\n    ports:\n      - \"%d:8080\"\n", db, 10000+i)
	}
	b.WriteString("\nvolumes:\n")
	for g := 0; g < (n+9)/10; g++ {
		fmt.Fprintf(&b, "  db%04d-data:\n", g)
	}
	return []byte(b.String())
}

// benchInput is the generated file, named in an empty directory (no .env
// to find).
func benchInput(b *testing.B, n int) []Input {
	b.Helper()
	return []Input{{Path: filepath.Join(b.TempDir(), "compose.yml"), Data: genCompose(n)}}
}

func benchMigrate(b *testing.B, in []Input) {
	b.Helper()
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(in[0].Data)))
	for b.Loop() {
		res, err := Migrate(ctx, in, DefaultOptions())
		if err != nil || !res.Changed() {
			b.Fatalf("migrate: %v (changed: %v)", err, res != nil && res.Changed())
		}
	}
}

// BenchmarkMigrate is the whole Migrate (load, plan, apply, and the
// verification: validate the output, migrate it again) on 10 and 1,000
// services; compose-go-load is compose-go alone (loader.LoadWithContext
// with the options Migrate uses) on the same 1,000-service file. The
// target is migrate/1000 at most 3x compose-go-load/1000.
//
//	go test ./rewrite -run '^$' -bench BenchmarkMigrate -benchtime 10x
func BenchmarkMigrate(b *testing.B) {
	for _, n := range []int{10, 1000} {
		in := benchInput(b, n)
		b.Run(fmt.Sprintf("migrate/%d", n), func(b *testing.B) { benchMigrate(b, in) })
	}
	in := benchInput(b, 1000)
	b.Run("compose-go-load/1000", func(b *testing.B) {
		ctx := context.Background()
		abs, err := filepath.Abs(in[0].Path)
		if err != nil {
			b.Fatal(err)
		}
		// What compose.Load hands compose-go for this file: every profile,
		// paths resolved, no interpolation environment.
		details := types.ConfigDetails{WorkingDir: filepath.Dir(abs), Environment: map[string]string{},
			ConfigFiles: []types.ConfigFile{{Filename: abs, Content: in[0].Data}}}
		b.ReportAllocs()
		b.SetBytes(int64(len(in[0].Data)))
		for b.Loop() {
			_, err := loader.LoadWithContext(ctx, details, loader.WithProfiles([]string{"*"}), func(o *loader.Options) {
				o.SetProjectName("uds-migrate", true)
				o.ResolvePaths = true
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestGenComposeMigrates keeps the benchmark input honest: the generated
// file loads, and every client is migrated (one value change each).
func TestGenComposeMigrates(t *testing.T) {
	in := []Input{{Path: filepath.Join(t.TempDir(), "compose.yml"), Data: genCompose(30)}}
	res, err := Migrate(context.Background(), in, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	values := 0
	for _, c := range res.Changes {
		if c.Kind == "value" {
			values++
		}
	}
	if values != 27 || len(res.DBs) != 3 {
		t.Errorf("%d values rewritten for %d databases, want 27 for 3", values, len(res.DBs))
	}
}
