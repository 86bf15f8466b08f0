package dockerfile

import (
	"slices"
	"strings"
	"testing"
)

// TestContextReach: which context sources reach the image a build
// produces, through the stages it is built FROM and the paths its --from
// copies take; ok false where the file does not say.
func TestContextReach(t *testing.T) {
	for _, c := range []struct {
		name, df, target string
		final, buildOnly []string
		notOK            bool
	}{
		{name: "one stage", df: "FROM python:3\nWORKDIR /srv\nCOPY requirements.txt .\nCOPY app ./app\n",
			final: []string{"requirements.txt", "app"}},
		{name: "wakapi: the tree only in the build stage, the final stage takes /staging",
			df: "FROM golang:alpine AS build-env\nWORKDIR /src\nCOPY ./go.mod ./go.sum ./\nCOPY . .\nRUN go build -o wakapi\nWORKDIR /staging\nRUN cp /src/wakapi .\n" +
				"FROM gcr.io/distroless/static:nonroot\nWORKDIR /app\nCOPY --from=build-env /staging /app\nENTRYPOINT [\"/app/wakapi\"]\n",
			buildOnly: []string{"go.mod", "go.sum", "."}},
		{name: "ente: the final stage copies the binary and some folders of its own",
			df: "FROM golang:1 AS builder\nWORKDIR /etc/ente/\nCOPY go.mod .\nCOPY . .\nRUN go build -o museum ./cmd/museum\n" +
				"FROM alpine:3.22\nCOPY --from=builder /etc/ente/museum .\nCOPY configurations configurations\nCOPY migrations migrations\n",
			final: []string{"configurations", "migrations", "museum"}, buildOnly: []string{"go.mod", "."}},
		{name: "the build stage's whole workdir copied on: everything reaches",
			df:    "FROM node:20 AS build\nWORKDIR /app\nCOPY . .\nRUN npm run build\nFROM node:20-slim\nCOPY --from=build /app /app\nCMD [\"node\", \"/app/server.js\"]\n",
			final: []string{"."}},
		{name: "a part of it: what lands under the copied path",
			df:    "FROM node:20 AS build\nWORKDIR /app\nCOPY package.json .\nCOPY . .\nRUN npm run build\nFROM nginx\nCOPY --from=build /app/dist /usr/share/nginx/html\n",
			final: []string{"dist"}, buildOnly: []string{"package.json", "."}},
		{name: "a stage built FROM the build stage holds its files",
			df:    "FROM python:3 AS base\nWORKDIR /srv\nCOPY . .\nFROM base AS web\nCMD [\"gunicorn\"]\n",
			final: []string{"."}},
		{name: "target selects the image",
			df:     "FROM python:3 AS dev\nCOPY scripts /scripts\nFROM python:3 AS prod\nCOPY app /app\n",
			target: "dev", final: []string{"scripts"}, buildOnly: []string{"app"}},
		{name: "--from by number, through two stages",
			df:    "FROM golang:1\nCOPY . /src\nFROM alpine AS mid\nCOPY --from=0 /src/bin /out\nFROM scratch\nCOPY --from=mid /out /bin\n",
			final: []string{"bin"}, buildOnly: []string{"."}},
		{name: "an image's files, not a stage's", df: "FROM alpine\nCOPY --from=nginx:1 /etc/nginx /etc/nginx\nCOPY conf /etc/app\n",
			final: []string{"conf"}},
		{name: "a variable in a stage reference", df: "ARG BASE=build\nFROM golang AS build\nCOPY . /src\nFROM alpine\nCOPY --from=${BASE} /src /src\n", notOK: true},
		{name: "a variable in a destination", df: "FROM golang AS build\nCOPY . $SRC\nFROM alpine\nCOPY --from=build /src /src\n", notOK: true},
		{name: "a relative destination on an unknown WORKDIR, taken in part", df: "FROM golang AS build\nCOPY . .\nFROM alpine\nCOPY --from=build /src /src\n", notOK: true},
		{name: "no FROM", df: "COPY . /src\n", notOK: true},
		{name: "unknown target", df: "FROM a AS x\nCOPY . /s\n", target: "y", notOK: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			final, buildOnly, ok := ContextReach([]byte(c.df), c.target, func(src string) bool { return !strings.Contains(src, ".") || src == "." })
			if ok == c.notOK {
				t.Fatalf("ok = %v", ok)
			}
			slices.Sort(final)
			slices.Sort(buildOnly)
			slices.Sort(c.final)
			slices.Sort(c.buildOnly)
			if !slices.Equal(final, c.final) || !slices.Equal(buildOnly, c.buildOnly) {
				t.Errorf("final %q, build only %q; want %q, %q", final, buildOnly, c.final, c.buildOnly)
			}
		})
	}
}
