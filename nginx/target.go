package nginx

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/internal/textedit"
)

// ConfDirs are where nginx builds read their configuration: the official
// and unprivileged images (/etc/nginx), OpenResty, Bitnami. A file mounted
// under one of them configures the proxy.
var ConfDirs = []string{"/etc/nginx", "/usr/local/openresty/nginx/conf", "/etc/openresty", "/opt/bitnami/nginx/conf"}

// InConfDir reports whether path lies in one of ConfDirs.
func InConfDir(path string) bool {
	for _, d := range ConfDirs {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

// passDirectives are the directives that name a backend address, with the
// protocol the backend must speak.
var passDirectives = map[string]string{
	"proxy_pass":   "http",
	"uwsgi_pass":   "uwsgi",
	"fastcgi_pass": "fastcgi",
	"grpc_pass":    "grpc",
}

// Target is one backend address written in a configuration: a server in an
// upstream block or the argument of proxy_pass, uwsgi_pass, fastcgi_pass or
// grpc_pass.
type Target struct {
	// Directive is "server" (inside an upstream block) or the pass
	// directive's name.
	Directive string
	// Upstream is the name of the enclosing upstream block, for "server".
	Upstream string
	// Protocol is what the backend speaks: "http", "uwsgi", "fastcgi" or
	// "grpc". An upstream's servers speak what the pass directives using
	// the upstream speak; Targets fills it from them ("http" when unused).
	Protocol string
	// Scheme is the written scheme ("http", "https", "grpc", "uwsgi", ...),
	// "" when none is written.
	Scheme string
	// Host and Port are the backend address; Port is 0 when not written.
	Host string
	Port int
	// URI is what follows host[:port] in proxy_pass ("/api/"), "" when
	// absent: nginx then passes the request URI unchanged.
	URI string
	// Variable is true when the address holds a $variable: nginx resolves
	// it per request, so it cannot be rewritten statically.
	Variable bool
	// HostHeader is false for a proxy_pass to host:port where no
	// proxy_set_header Host is in effect: the backend saw "Host: host:port"
	// and sees "Host: localhost" once the target is a socket.
	HostHeader bool
	// Arg is the address argument; Line and Col are its position.
	Arg       Token
	Line, Col int
}

func (t Target) String() string {
	return fmt.Sprintf("%d:%d: %s %s", t.Line, t.Col, t.Directive, t.Arg.Value)
}

// IsSocket reports whether an address already names a Unix socket.
func IsSocket(addr string) bool {
	if _, rest, ok := strings.Cut(addr, "://"); ok {
		addr = rest
	}
	return strings.HasPrefix(addr, "unix:")
}

// Upstreams returns the names of the upstream blocks in c, in file order.
func (c *Config) Upstreams() []string {
	var out []string
	c.Walk(func(d *Directive, _ []*Directive) {
		if d.Name.Value == "upstream" && d.IsBlock && len(d.Args) > 0 {
			out = append(out, d.Args[0].Value)
		}
	})
	return out
}

// Targets lists the backend addresses of c that a socket could replace:
// servers of upstream blocks and pass directives that name a host. It
// leaves out addresses already in socket form and pass directives that name
// an upstream block (upstreams holds the names of every upstream of the
// whole configuration, which may live in other files; the upstream's
// servers are the targets). Addresses built from variables are returned
// with Variable set. protocols maps upstream names to the protocol their
// users speak (see UpstreamProtocols); nil means http.
func (c *Config) Targets(upstreams map[string]bool, protocols map[string]string) []Target {
	var out []Target
	levels := map[*Directive]hostLevel{}
	c.Walk(func(d *Directive, parents []*Directive) {
		name := d.Name.Value
		switch {
		case name == "server" && !d.IsBlock && len(d.Args) > 0 && len(parents) > 0 && parents[len(parents)-1].Name.Value == "upstream":
			up := parents[len(parents)-1]
			t := c.target(d, d.Args[0])
			if len(up.Args) > 0 {
				t.Upstream = up.Args[0].Value
			}
			t.Protocol, t.HostHeader = "http", true
			if p := protocols[t.Upstream]; p != "" {
				t.Protocol = p
			}
			if t.Host != "" || t.Variable {
				out = append(out, t)
			}
		case passDirectives[name] != "" && len(d.Args) == 1:
			t := c.target(d, d.Args[0])
			t.Protocol = passDirectives[name]
			if t.Variable {
				out = append(out, t)
				return
			}
			if t.Host == "" || (t.Port == 0 && upstreams[t.Host]) {
				return
			}
			t.HostHeader = name != "proxy_pass" || hostHeaderSet(parents, levels)
			out = append(out, t)
		}
	})
	return out
}

// UpstreamProtocols maps each upstream name used by a pass directive in
// any of cs to the protocol of that directive ("uwsgi" for uwsgi_pass
// backend).
func UpstreamProtocols(cs []*Config) map[string]string {
	out := map[string]string{}
	for _, c := range cs {
		c.Walk(func(d *Directive, _ []*Directive) {
			proto := passDirectives[d.Name.Value]
			if proto == "" || len(d.Args) != 1 {
				return
			}
			_, host, port, _ := splitAddr(d.Args[0].Value)
			if port == 0 && host != "" {
				if _, ok := out[host]; !ok {
					out[host] = proto
				}
			}
		})
	}
	return out
}

// target parses an address argument.
func (c *Config) target(d *Directive, arg Token) Target {
	t := Target{Directive: d.Name.Value, Arg: arg}
	t.Line, t.Col = c.Position(arg.Start)
	v := arg.Value
	if strings.Contains(v, "$") {
		t.Variable = true
		return t
	}
	if IsSocket(v) {
		return t
	}
	t.Scheme, t.Host, t.Port, t.URI = splitAddr(v)
	return t
}

// splitAddr splits "scheme://host:port/uri" (every part but host optional;
// host may be a bracketed IPv6 address).
func splitAddr(v string) (scheme, host string, port int, uri string) {
	if s, rest, ok := strings.Cut(v, "://"); ok {
		scheme, v = s, rest
	}
	if i := strings.IndexAny(v, "/?"); i >= 0 {
		v, uri = v[:i], v[i:]
	}
	host = v
	if h, p, err := net.SplitHostPort(v); err == nil {
		if n, err := strconv.Atoi(p); err == nil {
			host, port = h, n
		}
	}
	return scheme, strings.Trim(host, "[]"), port, uri
}

// hostLevel is what one block says of proxy_set_header: whether it has
// any, and whether one sets Host.
type hostLevel struct{ found, host bool }

// hostHeaderSet reports whether proxy_set_header Host is in effect for a
// proxy_pass with these parents. nginx inherits proxy_set_header from the
// enclosing level only when the inner level has none of its own. levels
// remembers each block's answer: an http block of 20,000 servers was
// scanned again for each of their proxy_pass (issue 25).
func hostHeaderSet(parents []*Directive, levels map[*Directive]hostLevel) bool {
	for i := len(parents) - 1; i >= 0; i-- {
		l, ok := levels[parents[i]]
		if !ok {
			for _, d := range parents[i].Block {
				if d.Name.Value == "proxy_set_header" {
					l.found = true
					if len(d.Args) > 0 && strings.EqualFold(d.Args[0].Value, "host") {
						l.host = true
					}
				}
			}
			levels[parents[i]] = l
		}
		if l.found {
			return l.host
		}
	}
	return false
}

// SocketForm returns the address argument that sends t's requests to the
// Unix socket sock (an absolute path), in the directive's own syntax:
// "unix:/run/app/app.sock" for upstream servers and fastcgi_pass,
// "http://unix:/run/app/app.sock:/uri/" for proxy_pass (the URI after a
// colon), and the written scheme kept for uwsgi_pass and grpc_pass.
func (t Target) SocketForm(sock string) string {
	switch t.Directive {
	case "proxy_pass":
		scheme := t.Scheme
		if scheme == "" {
			scheme = "http"
		}
		s := scheme + "://unix:" + sock
		if t.URI != "" {
			s += ":" + t.URI
		}
		return s
	case "uwsgi_pass", "grpc_pass":
		if t.Scheme != "" {
			return t.Scheme + "://unix:" + sock
		}
	}
	return "unix:" + sock
}

// Replace returns the edit that swaps t's address for text, in the
// quoting the argument was written with.
func (t Target) Replace(text string) textedit.Edit {
	if t.Arg.Quote != 0 {
		text = string(t.Arg.Quote) + text + string(t.Arg.Quote)
	} else if strings.ContainsAny(text, " \t;{}\"'#\\") {
		text = `"` + strings.ReplaceAll(text, `"`, `\"`) + `"`
	}
	return textedit.Edit{Start: t.Arg.Start, End: t.Arg.End, New: text}
}
