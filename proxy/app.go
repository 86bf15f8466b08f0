package proxy

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/appserver"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/internal/dockerfile"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// listenOnSocket makes app a's server listen on sock: it rewrites the
// server's flags in command: or entrypoint:, or its unicorn config file.
// It reports false, with a UDS304 warning, when no known server is found
// there: nginx must then stay on TCP, since nothing would create the
// socket.
func (pp *planner) listenOnSocket(a *appSide, sock string) bool {
	src, node := pp.p.ServiceNode(a.name)
	o := appserver.Options{Socket: sock, Protocol: a.protocol, Port: a.port, DropTCP: pp.opts.DropTCP}
	if o.Port == 0 && a.protocol == "http" {
		o.Port = 80
	}
	for _, key := range []string{"command", "entrypoint"} {
		_, v := yamledit.MapGet(node, key)
		if v = yamledit.Deref(v); v == nil {
			continue
		}
		plan, ok := pp.rewriteCommand(src, a.name, key, v, o)
		if !ok {
			continue
		}
		pp.appNotes(a, plan, sock)
		if plan.ConfigFile != "" {
			pp.unicornConfig(a, plan.ConfigFile, o)
		}
		return true
	}
	if svc := pp.p.Model.Services[a.name]; svc.Build == nil && !startsProgram(svc.Entrypoint) && !namesProgram(svc.Command) {
		// A published image that runs its own server (RabbitMQ's
		// management UI, NATS monitoring, Jaeger's UI, PowerSync's
		// ["start", "-r", "unified"]): no app server's command to change,
		// so no manual step either.
		what := "the image runs a server of its own"
		if len(svc.Command) > 0 {
			what = fmt.Sprintf("its command: (%s) names no program the tool knows, so it is arguments to the image's own entrypoint, which runs a server of its own", strings.Join(svc.Command, " "))
		}
		pp.note("UDS311", a.name, "image",
			fmt.Sprintf("nginx reaches %s (image %s) on port %d: %s, not an app server the tool moves to a socket (gunicorn, uvicorn, puma, uwsgi or unicorn in command: or entrypoint:); it stays on TCP", a.name, svc.Image, o.Port, what))
		return false
	}
	pp.note("UDS304", a.name, "command",
		fmt.Sprintf("nginx reaches %s on port %d, but no gunicorn, uvicorn, puma, uwsgi or unicorn command is written in its command: or entrypoint:; it stays on TCP. Make the server listen on %s too (gunicorn --bind unix:%s --umask 0, uvicorn --uds %s, puma -b 'unix://%s?umask=0000', uwsgi --socket %s --chmod-socket=666, unicorn listen \"%s\") and run again",
			a.name, o.Port, sock, sock, sock, sock, sock, sock))
	return false
}

// startsProgram reports whether an entrypoint: names a program to run:
// docker executes its first word, whatever it is (only flags, NATS's
// ["-m", "8222"], name none).
func startsProgram(words []string) bool {
	return len(words) > 0 && words[0] != "" && !strings.HasPrefix(words[0], "-")
}

// namesProgram reports whether the command: of a published image (whose
// entrypoint the tool cannot read) names a program to run (node
// server.js, /app/run.sh, python -m gunicorn), not arguments for the
// image's own entrypoint: flags (NATS's ["-m", "8222"]) or a word the tool
// cannot read as a program (PowerSync's ["start", "-r", "unified"],
// Kestra's server standalone). A word with a path in it, a shell, an
// interpreter or launcher, or an app server the tool knows is a program;
// any other bare word is taken for an argument, so it gets no advice about
// a program it may not be.
func namesProgram(words []string) bool {
	if !startsProgram(words) {
		return false
	}
	w := words[0]
	return strings.Contains(w, "/") || programRE.MatchString(w)
}

// programRE matches the programs a command: starts a server with: shells,
// interpreters and their launchers (python3.12, npm, bundle), process
// wrappers (exec, tini, gosu) and the app servers (appserver's and their
// kin), by name.
var programRE = regexp.MustCompile(`^(sh|bash|ash|dash|zsh|exec|env|tini|dumb-init|gosu|su-exec|s6-svscan|supervisord|` +
	`(python|pypy|ruby|node|nodejs|php|perl|java)[0-9.]*|php-fpm[0-9.]*|npm|npx|yarn|pnpm|bun|deno|bundle|rails|rake|dotnet|mix|elixir|iex|erl|` +
	`gunicorn|uvicorn|hypercorn|daphne|granian|puma|uwsgi|unicorn|waitress-serve|flask|django-admin|celery|streamlit|` +
	`[A-Za-z0-9_.-]+\.(sh|py|js|mjs|rb|pl|php|jar))$`)

// appNotes reports how the socket becomes connectable (UDS301) and what the
// reviewer must know about the listener change.
func (pp *planner) appNotes(a *appSide, plan *appserver.Plan, sock string) {
	if plan.Done {
		return
	}
	proxies := strings.Join(a.proxies, ", ")
	pp.note("UDS301", a.name, "command",
		fmt.Sprintf("%s listens on %s; nginx's worker (uid 101 in the official image) must be able to write the socket file (else \"13: Permission denied\"): %s. Only %s and %s mount %s", a.name, sock, plan.Permission, a.name, proxies, a.volume))
	for _, n := range plan.Notes {
		pp.note("UDS305", a.name, "command", a.name+": "+n)
	}
	if pp.opts.DropTCP {
		pp.note("UDS305", a.name, "command",
			fmt.Sprintf("--drop-tcp: %s no longer listens on TCP port %d; healthchecks, \"nc -z %s %d\" waits and other clients of that port stop working", a.name, a.port, a.name, a.port))
	}
	if u, from, makesDir := pp.runUser(a.name, a.dir); u != "" && !makesDir {
		pp.note("UDS308", a.name, "user",
			fmt.Sprintf("%s runs as user %s (%s): the new volume %s is created root-owned (0755) at %s unless the image has that directory, and the server cannot create its socket there; add RUN mkdir -p %s && chown %s %s to the image (a named volume copies the directory's owner), or mount the volume at a directory %s owns", a.name, u, from, a.volume, a.dir, a.dir, u, a.dir, u))
	}
}

// runUser returns the non-root user a service's processes run as: compose's
// user:, else the last USER of the Dockerfile built here (its final stage),
// with where it is set; "" for root or unknown. makesDir reports that the
// Dockerfile creates dir itself (a RUN mkdir naming it after that FROM).
func (pp *planner) runUser(service, dir string) (user, from string, makesDir bool) {
	svc := pp.p.Model.Services[service]
	user, from = svc.User, "user: in the compose file"
	if b := svc.Build; b != nil && b.Context != "" {
		df := dockerfile.Path(b.Context, b.Dockerfile)
		if data, err := pp.ed.ReadFile(pp.p.DisplayPath(df)); err == nil {
			u, mk := dockerfile.User(data, dir)
			makesDir = mk
			if user == "" && u != "" {
				user, from = u, "USER in "+pp.p.DisplayPath(df)
			}
		}
	}
	if user == "" || user == "root" || user == "0" || strings.HasPrefix(user, "0:") || strings.HasPrefix(user, "root:") {
		return "", "", false
	}
	return user, from, makesDir
}

// rewriteCommand plans and writes the listener change in command: or
// entrypoint: v (a string or a list). ok is false when v names no known
// server.
func (pp *planner) rewriteCommand(src *compose.Source, service, key string, v *yaml.Node, o appserver.Options) (*appserver.Plan, bool) {
	inFlow := false
	switch v.Kind {
	case yaml.ScalarNode:
		out, plan, err := planString(v.Value, o)
		if err != nil {
			return nil, false
		}
		if out != v.Value && pp.ed.ReplaceScalar(src, v, out, inFlow) {
			pp.commandChange(src, v, service, key, plan, v.Value, out)
		}
		return plan, true
	case yaml.SequenceNode:
		var words []string
		for _, it := range v.Content {
			if it = yamledit.Deref(it); it.Kind != yaml.ScalarNode {
				return nil, false
			}
			words = append(words, it.Value)
		}
		plan, err := appserver.PlanArgs(words, o)
		if errors.Is(err, appserver.ErrUnknown) {
			// ["sh", "-c", "gunicorn ..."]: the server is inside one item.
			for _, it := range v.Content {
				it = yamledit.Deref(it)
				if !strings.ContainsAny(it.Value, " \t") {
					continue
				}
				out, plan, err := planString(it.Value, o)
				if err != nil {
					continue
				}
				if out != it.Value && pp.ed.ReplaceScalar(src, it, out, v.Style&yaml.FlowStyle != 0) {
					pp.commandChange(src, it, service, key, plan, it.Value, out)
				}
				return plan, true
			}
			return nil, false
		}
		if err != nil {
			return nil, false
		}
		if len(plan.Edits) > 0 {
			pp.editItems(src, v, plan.Edits)
			pp.commandChange(src, v, service, key, plan, strings.Join(words, " "), strings.Join(appserver.Apply(words, plan.Edits), " "))
		}
		return plan, true
	}
	return nil, false
}

func (pp *planner) commandChange(src *compose.Source, n *yaml.Node, service, key string, plan *appserver.Plan, before, after string) {
	pp.rep.Change(finding.Change{Kind: "value", Pos: yamledit.NodePos(src, n), Service: service, Key: key,
		Dialect: string(plan.Server), Before: before, After: after, Reason: "listen on the socket nginx now uses"})
}

// planString plans a string-form command and returns it rewritten: edits
// touch only the words they change, the rest keeps its quoting. A server
// started through "sh -c '...'" is found inside the quoted word.
func planString(s string, o appserver.Options) (string, *appserver.Plan, error) {
	ws, err := appserver.Split(s)
	if err != nil {
		return "", nil, err
	}
	texts := make([]string, len(ws))
	for i, w := range ws {
		texts[i] = w.Text
	}
	plan, err := appserver.PlanArgs(texts, o)
	if errors.Is(err, appserver.ErrUnknown) {
		for _, w := range ws {
			if !strings.ContainsAny(w.Text, " \t") {
				continue
			}
			inner, plan, err := planString(w.Text, o)
			if err != nil {
				continue
			}
			return s[:w.Start] + requote(s[w.Start:w.End], inner) + s[w.End:], plan, nil
		}
		return "", nil, err
	}
	if err != nil {
		return "", nil, err
	}
	// Apply from the last word back so earlier offsets stay valid.
	for i := len(plan.Edits) - 1; i >= 0; i-- {
		e := plan.Edits[i]
		w := ws[e.At]
		q := make([]string, len(e.Words))
		for j, x := range e.Words {
			q[j] = appserver.Quote(x)
		}
		text := strings.Join(q, " ")
		if e.Replace {
			s = s[:w.Start] + text + s[w.End:]
		} else {
			s = s[:w.End] + " " + text + s[w.End:]
		}
	}
	return s, plan, nil
}

// requote writes inner in the quotes the word raw used ('...' or "...").
func requote(raw, inner string) string {
	if strings.HasPrefix(raw, `"`) {
		r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")
		return `"` + r.Replace(inner) + `"`
	}
	return appserver.Quote(inner)
}

// editItems applies word edits to a list-form command: a replaced word
// keeps its item (extra words follow it), inserted words become new items
// after theirs, written in that item's quoting.
func (pp *planner) editItems(src *compose.Source, seq *yaml.Node, edits []appserver.Edit) {
	flow := seq.Style&yaml.FlowStyle != 0
	for _, e := range edits {
		it := yamledit.Deref(seq.Content[e.At])
		words := e.Words
		if e.Replace {
			if !pp.ed.ReplaceScalar(src, it, words[0], flow) {
				return
			}
			words = words[1:]
		}
		if len(words) == 0 {
			continue
		}
		if flow {
			sp, err := src.ScalarSpan(it, true)
			if err != nil {
				pp.rep.Add("UDS111", yamledit.NodePos(src, it), "", "", "cannot find the end of this item; add "+strings.Join(words, " ")+" by hand")
				return
			}
			var b strings.Builder
			for _, w := range words {
				b.WriteString(", " + yamledit.RenderScalar(w, it.Style, true))
			}
			pp.ed.YAML(src).Replace(sp.End, sp.End, b.String())
			continue
		}
		var b strings.Builder
		for _, w := range words {
			b.WriteString(strings.Repeat(" ", seq.Column-1) + "- " + yamledit.RenderScalar(w, it.Style, false) + "\n")
		}
		pp.ed.YAML(src).InsertAfterLine(src.BlockEnd(it.Line, seq.Column, false), b.String())
	}
}

// unicornConfig adds the socket listener to the unicorn config file named
// by -c, found through the app's bind mounts or its build context; when it
// is in neither, a warning (UDS303) gives the line to add.
func (pp *planner) unicornConfig(a *appSide, cfgPath string, o appserver.Options) {
	host, fromBuild := pp.appFile(a.name, cfgPath)
	line := `listen "` + o.Socket + `"`
	if host == "" {
		pp.note("UDS303", a.name, "command",
			fmt.Sprintf("%s's unicorn config %s is not reachable from the compose file (no bind mount or build context holds it): add the line %s to it, or nginx gets \"2: No such file or directory\"", a.name, cfgPath, line))
		return
	}
	data, err := pp.ed.ReadFile(host)
	if err != nil {
		pp.note("UDS303", a.name, "command", fmt.Sprintf("cannot read %s (%v): add the line %s to it", host, err, line))
		return
	}
	out, done := appserver.UnicornListen(data, o.Socket, o.Port, o.DropTCP)
	if done {
		return
	}
	pp.ed.PutFile(host, data, out)
	pp.rep.Change(finding.Change{Kind: "value", Pos: finding.Pos{File: host}, Service: a.name, Key: "listen", Dialect: string(appserver.Unicorn),
		After: line, Reason: "listen on the socket nginx now uses"})
	if fromBuild {
		pp.note("UDS309", a.name, "build",
			fmt.Sprintf("%s is part of %s's build context, not mounted: rebuild the image (docker compose build %s) for the new listener to take effect", host, a.name, a.name))
	}
}

// appFile maps a path as the app container sees it (relative paths from
// its working directory, when known) to a host file: through a bind mount
// of the app, else inside its build context (the path itself, or the
// longest tail of an absolute path that exists there: a Dockerfile usually
// copies the context to its WORKDIR). fromBuild says which.
func (pp *planner) appFile(service, p string) (host string, fromBuild bool) {
	svc := pp.p.Model.Services[service]
	abs := p
	if wd := pp.workingDir(service); !path.IsAbs(p) && wd != "" {
		abs = path.Join(wd, p)
	}
	if path.IsAbs(abs) {
		src, node := pp.p.ServiceNode(service)
		_, ms := pp.p.Mounts(src, node)
		for _, m := range ms {
			if !m.Bind || !(abs == m.Target || strings.HasPrefix(abs, m.Target+"/")) {
				continue
			}
			if base, ok := pp.hostPath(m.Source); ok {
				h := filepath.Join(base, filepath.FromSlash(strings.TrimPrefix(abs[len(m.Target):], "/")))
				if isFile(h) {
					return h, false
				}
			}
		}
	}
	if svc.Build == nil || strings.Contains(svc.Build.Context, "://") {
		return "", false
	}
	ctx, ok := pp.buildContext(svc.Build.Context)
	if !ok {
		return "", false
	}
	cands := []string{p}
	if path.IsAbs(p) {
		parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
		cands = nil
		for i := range parts {
			cands = append(cands, path.Join(parts[i:]...))
		}
	}
	for _, c := range cands {
		if h := filepath.Join(ctx, filepath.FromSlash(c)); isFile(h) {
			return h, true
		}
	}
	return "", false
}

// workingDir is the directory a service's processes start in, where a
// relative path on its command line resolves: compose's working_dir, else
// the WORKDIR of the Dockerfile built here (of build.target's stage), else
// "" (an image's own WORKDIR, which the compose file does not show).
func (pp *planner) workingDir(service string) string {
	svc := pp.p.Model.Services[service]
	if svc.WorkingDir != "" {
		return svc.WorkingDir
	}
	b := svc.Build
	if b == nil || b.Context == "" || strings.Contains(b.Context, "://") {
		return ""
	}
	data, err := pp.ed.ReadFile(pp.p.DisplayPath(dockerfile.Path(b.Context, b.Dockerfile)))
	if err != nil {
		return ""
	}
	return dockerfile.Workdir(data, b.Target)
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// buildContext maps a build context to a host path in the form of the
// compose file paths: compose-go makes contexts absolute even when asked
// not to resolve paths, so one inside the project directory is made
// relative to it again.
func (pp *planner) buildContext(ctx string) (string, bool) {
	if filepath.IsAbs(ctx) {
		if abs, err := filepath.Abs(pp.projectDir()); err == nil {
			if rel, err := filepath.Rel(abs, ctx); err == nil && filepath.IsLocal(rel) {
				return filepath.Join(pp.projectDir(), rel), true
			}
		}
	}
	return pp.hostPath(ctx)
}
