package dockerfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// monorepo is a build context: a turbo/pnpm monorepo with two apps, the
// web app depending on the database package, the landing page on pg.
var monorepo = map[string]string{
	"package.json":                      `{"name": "root", "private": true}`,
	"pnpm-workspace.yaml":               "packages:\n  - apps/*\n  - packages/*\n  - '!**/test'\n",
	"turbo.json":                        `{}`,
	"scripts/docker-start.sh":           "#!/bin/sh\n",
	"apps/web/package.json":             `{"name": "@x/web", "dependencies": {"@x/database": "workspace:*", "next": "15"}}`,
	"apps/landing/package.json":         `{"name": "@x/landing", "dependencies": {"pg": "8"}}`,
	"packages/database/package.json":    `{"name": "@x/database", "devDependencies": {"@x/tsconfig": "workspace:*"}}`,
	"packages/database/prisma/x.prisma": "",
	"packages/tsconfig/package.json":    `{"name": "@x/tsconfig"}`,
}

func writeContext(t *testing.T, files map[string]string) (string, Context) {
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))) }
	return dir, Context{
		Stat: func(rel string) (bool, bool) {
			fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
			return err == nil && fi.IsDir(), err == nil
		},
		Pruned: func(scopes []string) ([]string, bool) {
			return TurboPruned(scopes, read, func(p string) []string {
				m, _ := doublestar.Glob(os.DirFS(dir), p)
				return m
			})
		},
	}
}

// TestImageSources: what of the build context reaches the image of the
// final (or target) stage.
func TestImageSources(t *testing.T) {
	_, c := writeContext(t, monorepo)
	for _, tc := range []struct {
		name, dockerfile, target string
		want                     string // sources joined by " ", or "!" for not ok
	}{
		{"literal sub-paths", "FROM node:24\nWORKDIR /app\nCOPY package.json .\nCOPY apps/web ./apps/web\n", "", "apps/web package.json"},
		{"COPY . . is everything", "FROM node:24\nWORKDIR /app\nCOPY . .\n", "", "."},
		// Rallly's apps/web/Dockerfile (lukevella/rallly @ c629b314), shortened.
		{"turbo prune", `FROM node:24 AS base
FROM base AS builder
WORKDIR /app
COPY package.json .
COPY . .
RUN turbo prune --scope=@x/web --docker
FROM base AS installer
WORKDIR /app
COPY package.json .
COPY --from=builder /app/out/json/ .
COPY --from=builder /app/out/full/ .
COPY turbo.json turbo.json
RUN pnpm build
FROM node:24-slim AS runner
WORKDIR /app
COPY --from=builder /app/scripts/docker-start.sh ./
COPY --from=builder /app/packages/database/prisma ./prisma
COPY --chown=nextjs:nodejs --from=installer /app/apps/web/.next/standalone ./
`, "", "apps/web package.json packages/database packages/database/prisma packages/tsconfig pnpm-workspace.yaml scripts/docker-start.sh turbo.json"},
		{"a build's output holds what reached its stage", "FROM node AS build\nWORKDIR /src\nCOPY . .\nRUN npm run build\nFROM nginx\nCOPY --from=build /src/dist /usr/share/nginx/html\n", "", "."},
		{"a copied folder of the context is that folder", "FROM node AS build\nWORKDIR /src\nCOPY . .\nFROM node\nCOPY --from=build /src/apps/web /app\n", "", "apps/web"},
		{"an image copies nothing of the context", "FROM node\nCOPY --from=busybox:1.36 /bin/busybox /bin/\nCOPY apps/web /app\n", "", "apps/web"},
		{"the target stage", "FROM node AS dev\nCOPY . .\nFROM node AS prod\nCOPY apps/web /app\n", "dev", "."},
		{"a bind mount of the context", "FROM golang AS build\nRUN --mount=type=bind,target=/src go build -o /out/app ./cmd/app\nFROM scratch\nCOPY --from=build /out/app /app\n", "", "."},
		{"a build argument in a path", "FROM node\nARG APP=web\nCOPY apps/${APP} /app\n", "", "!"},
		{"a relative workdir on a base image's", "FROM node AS b\nWORKDIR app\nCOPY . .\nFROM node\nCOPY --from=b /app/apps/web /w\n", "", "."},
	} {
		got, ok := ImageSources([]byte(tc.dockerfile), tc.target, c)
		s := strings.Join(got, " ")
		if !ok {
			s = "!"
		}
		if s != tc.want {
			t.Errorf("%s: ImageSources = %q, want %q", tc.name, s, tc.want)
		}
	}
}

// TestTurboPruned: the workspaces turbo prune keeps, and a scope that
// names none.
func TestTurboPruned(t *testing.T) {
	_, c := writeContext(t, monorepo)
	got, ok := c.Pruned([]string{"@x/landing"})
	if want := []string{"package.json", "apps/landing", "pnpm-workspace.yaml"}; !ok || !slices.Equal(got, []string{"package.json", "apps/landing", "pnpm-workspace.yaml"}) {
		t.Errorf("Pruned(@x/landing) = %q, %v, want %q", got, ok, want)
	}
	if _, ok := c.Pruned([]string{"@x/nothing"}); ok {
		t.Error("Pruned(@x/nothing) is ok: a scope that names no workspace should not be")
	}
}

// TestImageSourcesByKind: which sources reach the image as the files
// themselves and which only as what a build step made of them.
func TestImageSourcesByKind(t *testing.T) {
	_, c := writeContext(t, map[string]string{
		"go.mod": "module m\n", "go.sum": "", "main.go": "package main\n", "entrypoint.sh": "#!/bin/sh\n",
		"configurations/local.yaml": "", "package.json": "{}", "dist/index.html": "",
	})
	for _, tc := range []struct {
		name, dockerfile, target string
		kept, built              string // joined by " "; kept "!" for not ok
	}{
		{name: "wakapi: the tree in build-env, the distroless stage takes /staging/app",
			dockerfile: "FROM golang:alpine AS build-env\nWORKDIR /src\nCOPY ./go.mod ./go.sum ./\nCOPY . .\nRUN go build -o wakapi\nWORKDIR /staging\nRUN mkdir app && cp /src/wakapi app/\n" +
				"FROM gcr.io/distroless/static:nonroot\nCOPY --from=build-env /staging/app /app\nENTRYPOINT [\"/app/wakapi\"]\n",
			built: ". go.mod go.sum"},
		{name: "ente: the binary from the builder, folders of the final stage's own",
			dockerfile: "FROM golang:1 AS builder\nWORKDIR /etc/ente/\nCOPY go.mod .\nCOPY . .\nRUN go build -o museum ./cmd/museum\n" +
				"FROM alpine:3.22\nCOPY --from=builder /etc/ente/museum .\nCOPY configurations configurations\n",
			kept: "configurations", built: ". go.mod"},
		{name: "the builder's whole workdir copied on: kept",
			dockerfile: "FROM node:20 AS build\nWORKDIR /app\nCOPY package.json .\nCOPY . .\nRUN npm run build\nFROM node:20-slim\nCOPY --from=build /app /app\n",
			kept:       "."},
		{name: "a part a context COPY wrote: kept; the build's output beside it: built",
			dockerfile: "FROM node:20 AS build\nWORKDIR /app\nCOPY . .\nRUN npm run build\nFROM nginx\nCOPY --from=build /app/dist /usr/share/nginx/html\nCOPY --from=build /app/out /srv\n",
			kept:       "dist", built: "."},
		{name: "a RUN's bind mount is built", dockerfile: "FROM golang:1 AS b\nRUN --mount=type=bind,target=/src go build -o /x /src\nFROM scratch\nCOPY --from=b /x /x\n",
			built: "."},
		{name: "target: the stage that holds the script", target: "build-env",
			dockerfile: "FROM golang:alpine AS build-env\nWORKDIR /src\nCOPY . .\nFROM scratch\nCOPY --from=build-env /src/app /app\n",
			kept:       "."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kept, built, ok := ImageSourcesByKind([]byte(tc.dockerfile), tc.target, c)
			if !ok {
				t.Fatal("not ok")
			}
			if got := strings.Join(kept, " "); got != tc.kept {
				t.Errorf("kept %q, want %q", got, tc.kept)
			}
			if got := strings.Join(built, " "); got != tc.built {
				t.Errorf("built only %q, want %q", got, tc.built)
			}
		})
	}
}

// TestOpaqueBase: the base image of a final stage whose chain copies
// nothing from the context, "" when a stage of the chain copies.
func TestOpaqueBase(t *testing.T) {
	for _, c := range []struct{ name, dockerfile, target, want string }{
		{"onbuild base", "FROM ghcr.io/ledermann/rails-base-builder:3.3.5-alpine AS Builder\nFROM ghcr.io/ledermann/rails-base-final:3.3.5-alpine\nUSER app\nCMD [\"docker/startup.sh\"]\n", "", "ghcr.io/ledermann/rails-base-final:3.3.5-alpine"},
		{"through a stage", "FROM acme/app:3 AS app\nENV X=1\nFROM app\nCMD [\"run\"]\n", "", "acme/app:3"},
		{"copies", "FROM ruby:3.3\nCOPY . /app\n", "", ""},
		{"a parent stage copies", "FROM acme/app:3 AS app\nCOPY . .\nFROM app\n", "", ""},
		{"bind mount", "FROM acme/app:3\nRUN --mount=type=bind,target=/src make -C /src\n", "", ""},
		{"target", "FROM acme/base:1 AS bare\nFROM ruby:3.3 AS full\nCOPY . .\n", "bare", "acme/base:1"},
		{"build argument", "ARG BASE=acme/app\nFROM $BASE\n", "", ""},
		// ledermann/docker-rails as published: the final stage copies a
		// file of the builder stage, which copies no context file itself
		{"copy from an opaque stage", "FROM ghcr.io/ledermann/rails-base-builder:3.3.5-alpine as Builder\nRUN rm .browserslistrc package.json\nFROM ghcr.io/ledermann/rails-base-final:3.3.5-alpine\nCOPY --from=Builder /etc/alpine-release /tmp/dummy\nRUN apk add --no-cache imagemagick\nUSER app\n", "", "ghcr.io/ledermann/rails-base-final:3.3.5-alpine"},
		{"copy from a stage that copies", "FROM golang:1.23 AS build\nCOPY . .\nRUN go build -o /app\nFROM acme/runtime:1\nCOPY --from=build /app /app\n", "", ""},
		{"copy from an image", "FROM acme/runtime:1\nCOPY --from=busybox:1.36 /bin/sh /bin/sh\n", "", "acme/runtime:1"},
	} {
		if got := OpaqueBase([]byte(c.dockerfile), c.target); got != c.want {
			t.Errorf("%s: OpaqueBase = %q, want %q", c.name, got, c.want)
		}
	}
}
