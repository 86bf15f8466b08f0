// Package appserver rewrites how an application server listens so that it
// serves a Unix socket a reverse proxy can reach through a shared volume:
// the bind flags of gunicorn, uvicorn, puma, uwsgi and unicorn command
// lines, and the listen lines of a unicorn configuration file.
//
// It works on argument lists (the words of a command) and returns edits in
// terms of word indices, so the caller can apply them to whatever holds the
// command (a compose string, a YAML list) without re-quoting the rest. The
// socket permissions follow FACTS.md: nginx's worker (uid 101 in the
// official image) must be able to write the socket file, so every plan says
// how the socket becomes connectable.
package appserver

import (
	"errors"
	"path"
	"strconv"
	"strings"
)

// Server names an application server.
type Server string

const (
	Gunicorn Server = "gunicorn"
	Uvicorn  Server = "uvicorn"
	Puma     Server = "puma"
	UWSGI    Server = "uwsgi"
	Unicorn  Server = "unicorn"
)

// ErrUnknown is returned when no known application server is found in a
// command.
var ErrUnknown = errors.New("no gunicorn, uvicorn, puma, uwsgi or unicorn in the command")

// Options says which socket to add.
type Options struct {
	// Socket is the socket file's absolute path inside the app container.
	Socket string
	// Protocol is what the proxy speaks to the app: "http" (proxy_pass)
	// or "uwsgi" (uwsgi_pass); uwsgi serves them on different options.
	Protocol string
	// Port is the TCP port the proxy used (0 when unknown). It picks the
	// listener --drop-tcp replaces, and is kept explicitly when the
	// command had no listener of its own (adding one would otherwise
	// replace the server's default or its config file's).
	Port int
	// DropTCP replaces the TCP listener instead of adding the socket next
	// to it.
	DropTCP bool
}

// Edit changes the argument list at word At: Replace swaps that word for
// Words, otherwise Words are inserted after it.
type Edit struct {
	At      int
	Replace bool
	Words   []string
}

// Plan is what to do to one command.
type Plan struct {
	Server Server
	// Program is the index of the server's own word.
	Program int
	// Edits to the argument list, in increasing At.
	Edits []Edit
	// Done is true when the command already listens on the socket.
	Done bool
	// ConfigFile is the unicorn -c file, when the listener belongs there
	// (the caller edits it with UnicornListen, or tells the user to).
	ConfigFile string
	// Permission says how the socket becomes connectable by the proxy's
	// worker, for the reviewer.
	Permission string
	// Notes are things the reviewer must know (a TCP port no longer
	// served, a config file whose binds the command line overrides).
	Notes []string
}

// Detect returns the server named by args and the index of its word: the
// first word whose base name is a known server ("bundle exec puma",
// "python -m gunicorn", "/venv/bin/uwsgi" all count).
func Detect(args []string) (Server, int, bool) {
	for i, a := range args {
		switch base := path.Base(a); base {
		case "gunicorn", "uvicorn", "puma", "uwsgi", "unicorn":
			return Server(base), i, true
		case "unicorn_rails":
			return Unicorn, i, true
		}
	}
	return "", 0, false
}

// Apply returns args with edits applied (for callers that hold the words
// as a plain list, and for tests).
func Apply(args []string, edits []Edit) []string {
	var out []string
	for i, a := range args {
		replaced := false
		for _, e := range edits {
			if e.At == i && e.Replace {
				out = append(out, e.Words...)
				replaced = true
			}
		}
		if !replaced {
			out = append(out, a)
		}
		for _, e := range edits {
			if e.At == i && !e.Replace {
				out = append(out, e.Words...)
			}
		}
	}
	return out
}

// option is one listener-related option found in a command: the index of
// its value word (the flag's own word for --flag=value) and the value.
type option struct {
	name  string
	at    int
	value string
	eq    bool // written --flag=value (or -bVALUE): one word
}

// findOptions collects the values of the named flags after the program
// word. Short flags (one dash, one letter) also take the value glued on
// ("-b0.0.0.0:80"); long ones also take "=value".
func findOptions(args []string, from int, names ...string) []option {
	var out []option
	for i := from + 1; i < len(args); i++ {
		a := args[i]
		for _, n := range names {
			switch {
			case a == n && i+1 < len(args):
				out = append(out, option{name: n, at: i + 1, value: args[i+1]})
			case strings.HasPrefix(n, "--") && strings.HasPrefix(a, n+"="):
				out = append(out, option{name: n, at: i, value: a[len(n)+1:], eq: true})
			case len(n) == 2 && n[0] == '-' && len(a) > 2 && strings.HasPrefix(a, n) && a[1] != '-':
				out = append(out, option{name: n, at: i, value: a[2:], eq: true})
			}
		}
	}
	return out
}

// PlanArgs plans the listener change for a command's words. It returns
// ErrUnknown when no known server is in args.
func PlanArgs(args []string, o Options) (*Plan, error) {
	srv, prog, ok := Detect(args)
	if !ok {
		return nil, ErrUnknown
	}
	p := &Plan{Server: srv, Program: prog}
	switch srv {
	case Gunicorn:
		planGunicorn(p, args, o)
	case Uvicorn:
		planUvicorn(p, args, o)
	case Puma:
		planPuma(p, args, o)
	case UWSGI:
		planUWSGI(p, args, o)
	case Unicorn:
		planUnicorn(p, args, o)
	}
	return p, nil
}

// last returns the index to insert after: the last listener option's
// value word, else the program word.
func last(p *Plan, opts []option) int {
	if len(opts) == 0 {
		return p.Program
	}
	return opts[len(opts)-1].at
}

// tcpFor picks the TCP listener the proxy used: the one on o.Port, else
// the only one.
func tcpFor(opts []option, port int, isTCP func(string) bool) *option {
	var tcp []option
	for _, op := range opts {
		if isTCP(op.value) {
			tcp = append(tcp, op)
		}
	}
	for i := range tcp {
		if port != 0 && strings.HasSuffix(tcp[i].value, ":"+strconv.Itoa(port)) {
			return &tcp[i]
		}
	}
	if len(tcp) == 1 {
		return &tcp[0]
	}
	return nil
}

// add inserts (or, with DropTCP and a TCP listener found, substitutes)
// the socket listener words.
func add(p *Plan, opts []option, tcp *option, o Options, words []string, keepTCP []string) {
	switch {
	case o.DropTCP && tcp != nil && !tcp.eq:
		// Replace "--bind" "0.0.0.0:8000" by the socket flag pair.
		p.Edits = append(p.Edits, Edit{At: tcp.at - 1, Replace: true, Words: words[:1]}, Edit{At: tcp.at, Replace: true, Words: words[1:]})
	case o.DropTCP && tcp != nil:
		p.Edits = append(p.Edits, Edit{At: tcp.at, Replace: true, Words: words})
	case len(opts) == 0 && !o.DropTCP && keepTCP != nil:
		p.Edits = append(p.Edits, Edit{At: p.Program, Words: append(keepTCP, words...)})
	default:
		p.Edits = append(p.Edits, Edit{At: last(p, opts), Words: words})
	}
}

func hasFlag(args []string, from int, names ...string) bool {
	return len(findOptions(args, from, names...)) > 0
}

func planGunicorn(p *Plan, args []string, o Options) {
	binds := findOptions(args, p.Program, "-b", "--bind")
	for _, b := range binds {
		if b.value == "unix:"+o.Socket {
			p.Done = true
			return
		}
	}
	words := []string{"--bind", "unix:" + o.Socket}
	p.Permission = "gunicorn creates the socket with --umask 0, mode 0777"
	if um := findOptions(args, p.Program, "-m", "--umask"); len(um) > 0 {
		p.Permission = "gunicorn creates the socket with the --umask " + um[0].value + " already in the command: it must leave the socket writable for others (0) or for a group nginx's worker is in"
	} else {
		words = append(words, "--umask", "0")
	}
	var keep []string
	if o.Port != 0 && len(binds) == 0 && !o.DropTCP {
		keep = []string{"--bind", "0.0.0.0:" + strconv.Itoa(o.Port)}
		p.Notes = append(p.Notes, "gunicorn had no --bind on the command line; a --bind given there replaces the binds of gunicorn.conf.py and GUNICORN_CMD_ARGS, so the TCP port "+strconv.Itoa(o.Port)+" is bound explicitly as well")
	}
	add(p, binds, tcpFor(binds, o.Port, func(v string) bool { return !strings.HasPrefix(v, "unix:") && !strings.HasPrefix(v, "fd://") }), o, words, keep)
}

func planUvicorn(p *Plan, args []string, o Options) {
	if uds := findOptions(args, p.Program, "--uds"); len(uds) > 0 {
		if uds[0].value == o.Socket {
			p.Done = true
			return
		}
		p.Notes = append(p.Notes, "uvicorn already serves the socket "+uds[0].value+"; share its directory with the proxy by hand")
		return
	}
	p.Permission = "uvicorn makes its socket mode 0666 itself"
	hp := findOptions(args, p.Program, "--host", "--port")
	p.Edits = append(p.Edits, Edit{At: last(p, hp), Words: []string{"--uds", o.Socket}})
	if !o.DropTCP {
		p.Notes = append(p.Notes, "uvicorn serves one address: with --uds it no longer listens on TCP (--host/--port are ignored), so healthchecks or waits on the TCP port stop working; to keep both, run it as gunicorn -k uvicorn.workers.UvicornWorker with two --bind")
	}
}

func planPuma(p *Plan, args []string, o Options) {
	binds := findOptions(args, p.Program, "-b", "--bind", "-p", "--port")
	for _, b := range binds {
		if strings.HasPrefix(b.value, "unix://"+o.Socket) {
			p.Done = true
			return
		}
	}
	// Without umask puma keeps the process umask (022 gives 0755), and
	// nginx's worker gets "13: Permission denied".
	url := "unix://" + o.Socket + "?umask=0000"
	p.Permission = "puma creates the socket with ?umask=0000, mode 0777"
	var keep []string
	if o.Port != 0 && len(binds) == 0 && !o.DropTCP {
		keep = []string{"-b", "tcp://0.0.0.0:" + strconv.Itoa(o.Port)}
		p.Notes = append(p.Notes, "puma had no -b/-p on the command line; binds given there replace those of config/puma.rb, so tcp://0.0.0.0:"+strconv.Itoa(o.Port)+" is bound explicitly as well")
	}
	var tcp *option
	for i, b := range binds {
		if b.name == "-b" || b.name == "--bind" {
			if t := tcpFor(binds[i:i+1], o.Port, func(v string) bool { return strings.HasPrefix(v, "tcp://") || strings.HasPrefix(v, "ssl://") }); t != nil {
				tcp = t
			}
		} else if o.Port == 0 || b.value == strconv.Itoa(o.Port) {
			tcp = &binds[i]
		}
	}
	add(p, binds, tcp, o, []string{"-b", url}, keep)
}

func planUWSGI(p *Plan, args []string, o Options) {
	socks := findOptions(args, p.Program, "-s", "--socket", "--uwsgi-socket", "--http-socket", "--http")
	for _, s := range socks {
		if s.value == o.Socket {
			p.Done = true
			return
		}
	}
	// uwsgi_pass speaks the uwsgi protocol; proxy_pass speaks HTTP, which
	// uwsgi serves natively on --http-socket (--http would start a
	// separate router process).
	flag := "--socket"
	if o.Protocol != "uwsgi" {
		flag = "--http-socket"
	}
	words := []string{flag, o.Socket}
	p.Permission = "uwsgi creates the socket with --chmod-socket=666"
	if cs := findOptions(args, p.Program, "--chmod-socket"); len(cs) > 0 {
		p.Permission = "uwsgi creates the socket with the --chmod-socket=" + cs[0].value + " already in the command: it must let others (or nginx's group) write"
	} else if !containsWord(args, "--chmod-socket") {
		words = append(words, "--chmod-socket=666")
	} else {
		p.Permission = "uwsgi creates the socket with --chmod-socket (mode 0666 when given without a value)"
	}
	isTCP := func(v string) bool { return strings.Contains(v, ":") && !strings.HasPrefix(v, "/") }
	add(p, socks, tcpFor(socks, o.Port, isTCP), o, words, nil)
	if len(socks) == 0 && hasFlag(args, p.Program, "--ini", "--yaml", "--json", "--xml") {
		p.Notes = append(p.Notes, "uwsgi reads its listeners from a config file too; sockets given on the command line are added to those")
	}
}

func containsWord(args []string, w string) bool {
	for _, a := range args {
		if a == w {
			return true
		}
	}
	return false
}

func planUnicorn(p *Plan, args []string, o Options) {
	p.Permission = "unicorn creates Unix listeners with umask 0, mode 0777 (its default unless listen sets :umask)"
	if cf := findOptions(args, p.Program, "-c", "--config-file"); len(cf) > 0 {
		p.ConfigFile = cf[len(cf)-1].value
		return
	}
	ls := findOptions(args, p.Program, "-l", "--listen")
	for _, l := range ls {
		if l.value == o.Socket || l.value == "unix:"+o.Socket {
			p.Done = true
			return
		}
	}
	var keep []string
	if o.Port != 0 {
		keep = []string{"-l", "0.0.0.0:" + strconv.Itoa(o.Port)}
	}
	add(p, ls, tcpFor(ls, o.Port, func(v string) bool { return !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "unix:") }), o, []string{"-l", o.Socket}, keep)
}
