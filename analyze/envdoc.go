package analyze

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/configfile"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/internal/interp"
)

// A configuration document in one environment variable (issue #21):
//
//	APP_CONFIG: |
//	  database:
//	    url: postgres://app:pw@db:5432/app
//
// or a JSON object ('{"db": {"url": "postgres://..."}}'). The value as a
// whole is no connection string, so the connection inside it is read with
// the document's own format (configfile's YAML or JSON reader) and edited
// in place where each byte of the setting stands in the compose file as in
// the document: a literal block scalar (|), or a one-line scalar without
// escapes. Other layouts (folded >, escapes, interpolation) are reported
// with the variable and the line.

// edges reads v as a configuration document. It returns the edges of
// the connection values inside it, and whether v is a document at all (so
// the caller does not read it as a host variable too).
// envDocs reads configuration documents held in environment variables.
type envDocs struct{ cl *collector }

func (d envDocs) edges(v compose.EnvVar) ([]*Edge, bool) {
	vals, doc, err := envDocValues(v)
	if !doc {
		return nil, false
	}
	if err != nil || len(vals) == 0 {
		return nil, d.warnLines(v)
	}
	return d.docEdges(v, vals), true
}

// docEdges returns the edges of the settings vals read from document v (a
// variable's value, or an inline config's content: configEdges), noting
// what it cannot edit.
func (d envDocs) docEdges(v compose.EnvVar, vals []configfile.Value) []*Edge {
	cl := d.cl
	var out []*Edge
	for _, cv := range vals {
		hosts, dname, socket := dialect.Classify(cv.Value)
		if dname == "" && !socket {
			if e := d.hostSetting(v, cv, vals); e != nil {
				out = append(out, e)
			}
			continue
		}
		at, ok := envDocValueAt(v, cv)
		if socket {
			d.sawSocket(v, cv, at, ok)
			continue
		}
		if !ok {
			if db := d.firstDB(v, hosts); db != nil {
				cl.note("UDS182", docPos(v, at), v.Service, v.Key,
					fmt.Sprintf("%s holds a configuration document whose %s (line %d of %s) reaches %s over TCP, written where the tool cannot edit it exactly (a folded scalar, an escape, a ${...} reference): write it in socket form by hand and mount %s's socket volume on %s",
						d.name(v), cv.Key, cv.Line, d.its(v), db.Name, db.Name, v.Service))
			}
			continue
		}
		// A catalogued image may take no socket form of the document's
		// URL (kestra/kestra: pgjdbc without junixsocket): UDS151, on TCP.
		inner := v
		inner.Value, inner.Pos = cv.Value, docPos(v, at)
		if cl.catalogueKeeps(inner, func(host string) *DB { return cl.dbAt(inner, host) }) {
			continue
		}
		at.Key = v.Key
		if e := (fileValues{cl}).edge(v.Service, v.Src.Path, v.Src.Data, at); e != nil {
			e.Var.Src, e.InFile.Src, e.InFile.DocKey = v.Src, v.Src, fmt.Sprintf("%s (line %d of %s)", cv.Key, cv.Line, d.its(v))
			out = append(out, e)
		}
	}
	return out
}

// configEdges reads the inline configs (configs: NAME: content:) each
// client mounts as the configuration files they become at their target,
// in the format the target's name says (YAML, JSON, Hjson, .properties),
// and returns the edges of the connection values in them, edited in place
// inside the compose file; a format the tool does not read is reported by
// the line that names a database (UDS182).
func (d envDocs) configEdges() []*Edge {
	cl := d.cl
	var out []*Edge
	for _, name := range cl.clientServices() {
		for _, c := range compose.InlineConfigs(cl.p.Project, name) {
			v := c.Var()
			cl.configTargets[v.Service+"/"+v.Key] = c.Target
			vals, ok := configValues(v, c.Target)
			if !ok || len(vals) == 0 {
				d.warnLines(v)
				continue
			}
			out = append(out, d.docEdges(v, vals)...)
		}
	}
	return d.sharedConfigs(out)
}

// sharedConfigs keeps the edges of inline configs whose every reader is
// migrated with them: one content is the file of every service that mounts
// the config, so an edit for one is an edit for all, and a service that
// gets no edge for the setting (no evidence of its own, left out of the
// run) would read a socket directory without the socket. Such a setting
// stays on TCP for all of them (UDS160). Database services do not count
// as readers.
func (d envDocs) sharedConfigs(edges []*Edge) []*Edge {
	cl := d.cl
	isDB := map[string]bool{}
	for _, db := range cl.dbs {
		isDB[db.Name] = true
	}
	readers := map[string][]string{} // config name → the services mounting it
	for _, name := range cl.p.ServiceOrder() {
		for _, c := range cl.p.Model.Services[name].Configs {
			if !isDB[name] {
				readers[c.Source] = append(readers[c.Source], name)
			}
		}
	}
	setting := func(e *Edge) string { return fmt.Sprintf("%s@%d", e.Var.Key, e.InFile.Value.Start) }
	migrated := map[string]map[string]bool{} // setting → services with an edge
	for _, e := range edges {
		if migrated[setting(e)] == nil {
			migrated[setting(e)] = map[string]bool{}
		}
		migrated[setting(e)][e.Var.Service] = true
	}
	var out []*Edge
	noted := map[string]bool{}
	for _, e := range edges {
		var left []string
		for _, r := range readers[strings.TrimPrefix(e.Var.Key, "configs.")] {
			if !migrated[setting(e)][r] {
				left = append(left, r)
			}
		}
		if len(left) == 0 {
			out = append(out, e)
			continue
		}
		if !noted[setting(e)] {
			noted[setting(e)] = true
			cl.note("UDS160", e.Var.Pos, e.Var.Service, e.Var.Key,
				fmt.Sprintf("%s reads %s of %s, which %s also mounts and the migration does not move to the socket (no evidence of its own, or left out of the run): rewriting it would break %s, so it is left on TCP; give each service a config of its own to migrate it",
					e.Var.Service, e.InFile.DocKey, e.Var.Key, strings.Join(left, ", "), strings.Join(left, ", ")))
		}
	}
	return out
}

// configValues reads inline config v, mounted at target, in the format
// its name says: its settings as the application reads them, with byte
// ranges in the text envDocValueAt places (envDocText: the content as
// written when its only $ are $$ escapes, which compose turns into $).
// ok is false for a format the tool does not read, or content that does
// not parse.
func configValues(v compose.EnvVar, target string) ([]configfile.Value, bool) {
	read := configFormat(target)
	if read == nil {
		return nil, false
	}
	text, escaped := envDocText(v)
	vals, err := read([]byte(text))
	if err != nil {
		return nil, false
	}
	if escaped {
		for i := range vals {
			vals[i].Value = strings.ReplaceAll(vals[i].Value, "$$", "$")
		}
	}
	return vals, true
}

// configFormat is the reader of a configuration file by its name, or nil.
func configFormat(target string) func([]byte) ([]configfile.Value, error) {
	switch strings.ToLower(path.Ext(target)) {
	case ".yml", ".yaml":
		return configfile.YAML
	case ".json":
		return configfile.JSON
	case ".hjson":
		return configfile.HJSON
	case ".properties":
		return configfile.Properties
	}
	return nil
}

// name is how findings name document v: SERVICE/KEY for a variable,
// SERVICE's configs.NAME (its container path) for an inline config.
func (d envDocs) name(v compose.EnvVar) string {
	if t, ok := d.cl.configTargets[v.Service+"/"+v.Key]; ok {
		return fmt.Sprintf("%s's %s (mounted at %s)", v.Service, v.Key, t)
	}
	return v.Service + "/" + v.Key
}

// its names the text of document v, for "line N of ...".
func (d envDocs) its(v compose.EnvVar) string {
	if _, ok := d.cl.configTargets[v.Service+"/"+v.Key]; ok {
		return "its content"
	}
	return "the value"
}

// envDocValues reads v as a configuration document (a YAML block or
// several lines, or a JSON object): its settings, and whether v is one.
func envDocValues(v compose.EnvVar) ([]configfile.Value, bool, error) {
	if v.Node == nil || v.Passthrough {
		return nil, false, nil
	}
	doc := strings.TrimSpace(v.Value)
	isJSON := strings.HasPrefix(doc, "{")
	block := v.Node.Style == yaml.LiteralStyle || v.Node.Style == yaml.FoldedStyle
	if !isJSON && !block && !strings.Contains(doc, "\n") {
		return nil, false, nil
	}
	read := configfile.YAML
	if isJSON {
		read = configfile.JSON
	}
	text, escaped := envDocText(v)
	vals, err := read([]byte(text))
	if escaped {
		for i := range vals {
			vals[i].Value = strings.ReplaceAll(vals[i].Value, "$$", "$")
		}
	}
	return vals, true, err
}

// envDocText is the text of v's document that its settings' byte ranges
// are in: the value as written when its only $ are $$ escapes (what the
// migration writes for junixsocket's $FactoryArg), so that each byte of a
// setting stands in the compose file, and escaped is true; else the value
// compose computes (a ${...} reference: no range in the file holds it).
func envDocText(v compose.EnvVar) (text string, escaped bool) {
	if v.Raw == v.Value {
		return v.Value, false
	}
	if m, err := interp.Mask(v.Raw); err == nil && len(m.Refs) == 0 && m.Value == v.Value {
		return v.Raw, true
	}
	return v.Value, false
}

// EnvDocLeaves returns the connection settings of a configuration
// document in v as values of their own, where they stand in the compose
// file (validate checks them like any other value). Literal $ is $$ in
// their raw text, as compose reads it.
func EnvDocLeaves(v compose.EnvVar) []compose.EnvVar {
	vals, _, err := envDocValues(v)
	if err != nil {
		return nil
	}
	var out []compose.EnvVar
	for _, cv := range vals {
		if _, dname, socket := dialect.Classify(cv.Value); dname == "" && !socket {
			continue
		}
		at, _ := envDocValueAt(v, cv)
		leaf := v
		leaf.Raw, leaf.Value, leaf.Pos = strings.ReplaceAll(cv.Value, "$", "$$"), cv.Value, docPos(v, at)
		leaf.Node, leaf.EnvFile = nil, nil
		out = append(out, leaf)
	}
	return out
}

// envDocValueAt places a document setting in the compose file: the same
// value with its line, column and byte range there, and whether every
// byte of it stands there as in the document (so it can be edited).
func envDocValueAt(v compose.EnvVar, cv configfile.Value) (configfile.Value, bool) {
	src, n := v.Src, v.Node
	text, escaped := envDocText(v)
	at := cv
	at.Line, at.Col = n.Line, n.Column
	var start int
	switch n.Style {
	case yaml.LiteralStyle:
		// Content lines follow the indicator line, each behind the
		// block's indentation; the whole line must read as in the value.
		line := n.Line + cv.Line
		if line > src.Lines() {
			return at, false
		}
		ind := blockIndent(src, n.Line+1)
		docLineStart := strings.LastIndexByte(text[:cv.Start], '\n') + 1
		docLine, _, _ := strings.Cut(text[docLineStart:], "\n")
		start = src.Offset(line, 1) + ind + (cv.Start - docLineStart)
		at.Line, at.Col = line, ind+(cv.Start-docLineStart)+1
		if t := strings.TrimRight(src.Line(line), "\r"); len(t) < ind || t[ind:] != docLine {
			return at, false
		}
	case 0, yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle:
		sp, err := src.ScalarSpan(n, v.InFlow)
		if err != nil || strings.Contains(text, "\n") {
			return at, false
		}
		inner := sp.Start + len(v.Prefix)
		if n.Style != 0 {
			inner++
		}
		start = inner + cv.Start
		at.Col = n.Column + (start - sp.Start)
		if inner+len(text) > len(src.Data) || string(src.Data[inner:inner+len(text)]) != text {
			return at, false
		}
	case yaml.FoldedStyle:
		// Folding joins lines: the block's first line stands for it.
		at.Line, at.Col = n.Line+1, blockIndent(src, n.Line+1)+1
		return at, false
	default:
		return at, false
	}
	if !escaped && strings.Contains(v.Raw, "$") {
		return at, false // what compose reads is not what is written
	}
	at.Start, at.End = start, start+(cv.End-cv.Start)
	return at, envDocSafe(n.Style, cv.Render("/x?host=/y"))
}

// envDocSafe reports whether text rendered by the document's format can
// stand inside a compose scalar of style: no quote that would end it.
func envDocSafe(style yaml.Style, text string) bool {
	switch style {
	case yaml.SingleQuotedStyle:
		return !strings.Contains(text, "'")
	case yaml.DoubleQuotedStyle:
		return !strings.ContainsAny(text, "\"\\")
	case 0:
		return !strings.Contains(text, ": ") && !strings.Contains(text, " #")
	}
	return true
}

// blockIndent is the indentation of a block scalar whose content starts
// at line first: that of its first line that is not blank.
func blockIndent(src *compose.Source, first int) int {
	for l := first; l <= src.Lines(); l++ {
		if t := src.Line(l); strings.TrimSpace(t) != "" {
			return len(t) - len(strings.TrimLeft(t, " "))
		}
	}
	return 0
}

// docPos is where a document setting at stands, as findings give it.
func docPos(v compose.EnvVar, at configfile.Value) finding.Pos {
	return finding.Pos{File: v.Pos.File, Line: at.Line, Col: at.Col}
}

// firstDB returns the first database one of hosts reaches from v's
// service, or nil.
func (d envDocs) firstDB(v compose.EnvVar, hosts []string) *DB {
	cl := d.cl
	for _, h := range hosts {
		if db, code, _ := cl.p.dbFor(cl.dbs, v.Service, h); db != nil && code == "" {
			return db
		}
	}
	return nil
}

// warnHost reports a host setting inside a document that names a
// database (database.host: db): the tool cannot know whether the program
// reading the document takes a socket directory there.
func (d envDocs) warnHost(v compose.EnvVar, cv configfile.Value) {
	cl := d.cl
	last := cv.Key[strings.LastIndexByte(cv.Key, '.')+1:]
	if !hostvar.IsAppHostKey(last) && !strings.EqualFold(last, "host") {
		return
	}
	db := d.firstDB(v, []string{strings.TrimSpace(cv.Value)})
	if db == nil {
		return
	}
	at, _ := envDocValueAt(v, cv)
	if abs, line := crystalPG(cl.scopes.Of(v.Service)); abs != "" {
		file := cl.p.DisplayPath(abs)
		cl.note("UDS182", docPos(v, at), v.Service, v.Key,
			fmt.Sprintf("%s holds a configuration document whose %s (line %d of %s) names %s as the host of a connection the program builds itself, and %s:%d declares crystal-pg, which takes no socket directory: it opens a host starting with / as the socket file itself (UNIXSocket.new, will/crystal-pg src/pq/connection.cr) and, for an empty host, looks for %s (ConnInfo#default_host, src/pq/conninfo.cr); %s",
				d.name(v), cv.Key, cv.Line, d.its(v), db.Name, file, line, strings.Join(crystalPGSockets, ", "), crystalPGStep(db, cl.opts.MountPath, v.Service)))
		return
	}
	cl.note("UDS182", docPos(v, at), v.Service, v.Key,
		fmt.Sprintf("%s holds a configuration document whose %s (line %d of %s) names %s as the host of a connection the program builds itself; the tool cannot know whether that program takes a socket directory there: if it hands it to libpq, pgx or psycopg, set it to %s and mount %s's socket volume on %s",
			d.name(v), cv.Key, cv.Line, d.its(v), db.Name, cl.opts.MountPath, db.Name, v.Service))
}

// warnLines reports a multi-line value the tool cannot read as YAML
// or JSON (TOML, INI) when one of its lines names a database as a host,
// naming the variable and the line. It reports whether it warned.
func (d envDocs) warnLines(v compose.EnvVar) bool {
	cl := d.cl
	dbs := cl.dbs
	for _, db := range dbs {
		n := connectionLine([]byte(v.Value), nameRE(db))
		if n == 0 {
			continue
		}
		line := v.Pos.Line
		if v.Node.Style == yaml.LiteralStyle || v.Node.Style == yaml.FoldedStyle {
			line += n
		}
		cl.note("UDS182", finding.Pos{File: v.Pos.File, Line: line, Col: 1}, v.Service, v.Key,
			fmt.Sprintf("%s holds a configuration document in a format the tool does not read, whose line %d names %s where a connection is configured: point that connection at %s's socket in %s by hand and mount %s's socket volume on %s",
				d.name(v), n, db.Name, db.Name, cl.opts.MountPath, db.Name, v.Service))
		return true
	}
	return false
}

// markSockets records, for revert, the socket-form values clients read
// from a configuration document in their environment.
func (d envDocs) markSockets() {
	for _, name := range d.cl.clientServices() {
		for _, v := range d.cl.p.ServiceEnv(name) {
			vals, _, err := envDocValues(v)
			if err != nil {
				continue
			}
			d.markDoc(v, vals)
		}
	}
}

// markConfigSockets records, for revert, the socket-form settings of the
// inline configs clients mount (markDoc). It notes nothing else.
func (d envDocs) markConfigSockets() {
	cl := d.cl
	for _, name := range cl.clientServices() {
		for _, c := range compose.InlineConfigs(cl.p.Project, name) {
			v := c.Var()
			cl.configTargets[v.Service+"/"+v.Key] = c.Target
			if vals, ok := configValues(v, c.Target); ok {
				d.markDoc(v, vals)
			}
		}
	}
}

// markDoc records the socket-form settings of document v (its settings
// vals): a connection string in socket form, or a host setting that is a
// directory (which goes back to the database's name: Host).
func (d envDocs) markDoc(v compose.EnvVar, vals []configfile.Value) {
	for _, cv := range vals {
		at, ok := envDocValueAt(v, cv)
		if _, _, socket := dialect.Classify(cv.Value); socket {
			d.sawSocket(v, cv, at, ok)
			continue
		}
		last := cv.Key[strings.LastIndexByte(cv.Key, '.')+1:]
		if (hostvar.IsAppHostKey(last) || strings.EqualFold(last, "host")) && strings.HasPrefix(strings.TrimSpace(cv.Value), "/") {
			d.sawHostSocket(v, cv, at, ok)
		}
	}
}

// sawSocket records the socket-form setting cv of v's document, placed at
// at in the compose file; exact says every byte of it stands there.
func (d envDocs) sawSocket(v compose.EnvVar, cv, at configfile.Value, exact bool) {
	s := SocketSetting{Service: v.Service, Key: v.Key, Pos: docPos(v, at), Value: cv.Value}
	_, s.Dialect, _ = dialect.Classify(cv.Value)
	if exact {
		s.In = &ConfigValue{Path: v.Src.Path, Data: v.Src.Data, Value: at, Src: v.Src,
			DocKey: fmt.Sprintf("%s (line %d of %s)", cv.Key, cv.Line, d.its(v))}
	}
	d.cl.sawSocket(s)
}

// sawHostSocket records host setting cv of v's document, a socket
// directory, as sawSocket does.
func (d envDocs) sawHostSocket(v compose.EnvVar, cv, at configfile.Value, exact bool) {
	s := SocketSetting{Service: v.Service, Key: v.Key, Pos: docPos(v, at), Value: strings.TrimSpace(cv.Value), Dialect: dialect.AppHostVar(false).Name, Host: true}
	if exact {
		s.In = &ConfigValue{Path: v.Src.Path, Data: v.Src.Data, Value: at, Src: v.Src,
			DocKey: fmt.Sprintf("%s (line %d of %s)", cv.Key, cv.Line, d.its(v))}
	}
	d.cl.sawSocket(s)
}

// crystalPGSockets are the socket files crystal-pg (will/crystal-pg,
// src/pq/conninfo.cr SOCKET_SEARCH, v0.28.0 and main) tries, in order,
// when the host is empty and PGHOST unset: the port is always 5432.
var crystalPGSockets = []string{"/run/postgresql/.s.PGSQL.5432", "/tmp/.s.PGSQL.5432", "/var/run/postgresql/.s.PGSQL.5432"}

// crystalPGMarkers name the crystal-pg shard in shard.yml (github:
// will/crystal-pg) and shard.lock (git: https://github.com/will/crystal-pg.git).
var crystalPGMarkers = []string{"will/crystal-pg"}

// crystalPG returns the shard manifest (absolute) and line that
// declares crystal-pg among the files reaching a service, or "":
// shard.yml's, else shard.lock's.
func crystalPG(s evidence.Scope) (string, int) {
	files := s.Files()
	for _, manifest := range []string{"shard.yml", "shard.lock"} {
		if file, line := crystalPGIn(s, files, manifest); file != "" {
			return file, line
		}
	}
	return "", 0
}

func crystalPGIn(s evidence.Scope, files []string, manifest string) (string, int) {
	for _, f := range files {
		if filepath.Base(f) != manifest {
			continue
		}
		data, err := s.ReadFile(f)
		if err != nil {
			continue
		}
		for n, line := range strings.Split(string(data), "\n") {
			for _, m := range crystalPGMarkers {
				if strings.Contains(line, m) {
					return f, n + 1
				}
			}
		}
	}
	return "", 0
}

// crystalPGStep is the manual step for a crystal-pg host: an empty host
// when the socket volume is mounted where crystal-pg looks and the port is
// 5432, else the socket file itself.
func crystalPGStep(db *DB, mount, service string) string {
	file := path.Join(mount, fmt.Sprintf(".s.PGSQL.%d", db.Port))
	if slices.Contains(crystalPGSockets, file) {
		return fmt.Sprintf("set it to \"\" (an empty string) and mount %s's socket volume at %s on %s; where the program hands the host to crystal-pg unchanged, the socket file %s works too", db.Name, mount, service, file)
	}
	return fmt.Sprintf("crystal-pg finds no socket of port %d at %s by itself: where the program hands the host to crystal-pg unchanged, set it to the socket file %s, and mount %s's socket volume at %s on %s", db.Port, mount, file, db.Name, mount, service)
}
