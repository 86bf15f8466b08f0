package appserver

import (
	"bytes"
	"regexp"
	"strconv"
)

// listenRE matches a unicorn listen line: indentation, "listen", and its
// first argument (a quoted string, or anything up to a comma or comment).
var listenRE = regexp.MustCompile(`(?m)^([ \t]*)listen[ \t(]+("[^"\n]*"|'[^'\n]*'|[^,#\n\r)]+)[^\n]*$`)

// UnicornListen adds a listener on sock to a unicorn configuration file
// (Ruby; see Unicorn::Configurator#listen): `listen "SOCK"` on a new line
// after the last listen line, with its indentation and line ending. With
// dropTCP the TCP listener on port (or the only one) is replaced instead.
// A file without listen lines gets the socket at its end, preceded by
// `listen "0.0.0.0:PORT"` when port is known: any listen replaces unicorn's
// default 0.0.0.0:8080. done is true (and out is conf) when a listen line
// already names sock.
func UnicornListen(conf []byte, sock string, port int, dropTCP bool) (out []byte, done bool) {
	ms := listenRE.FindAllSubmatchIndex(conf, -1)
	for _, m := range ms {
		if bytes.Contains(conf[m[4]:m[5]], []byte(sock)) {
			return conf, true
		}
	}
	eol := []byte("\n")
	if i := bytes.IndexByte(conf, '\n'); i > 0 && conf[i-1] == '\r' {
		eol = []byte("\r\n")
	}
	line := []byte(`listen "` + sock + `"`)
	if dropTCP {
		var tcp []int
		for _, m := range ms {
			arg := conf[m[4]:m[5]]
			if bytes.ContainsAny(arg, "/") && !bytes.Contains(arg, []byte(":")) {
				continue // already a socket path
			}
			if tcp == nil || (port != 0 && bytes.HasSuffix(bytes.Trim(arg, `"' `), []byte(":"+strconv.Itoa(port)))) {
				tcp = m
			}
		}
		if tcp != nil {
			return splice(conf, tcp[4], tcp[5], []byte(`"`+sock+`"`)), false
		}
	}
	if len(ms) == 0 {
		var add []byte
		if len(conf) > 0 && conf[len(conf)-1] != '\n' {
			add = append(add, eol...)
		}
		if port != 0 && !dropTCP {
			add = append(append(add, `listen "0.0.0.0:`+strconv.Itoa(port)+`"`...), eol...)
		}
		add = append(append(add, line...), eol...)
		return append(append([]byte(nil), conf...), add...), false
	}
	m := ms[len(ms)-1]
	end := m[1]
	add := append([]byte(nil), eol...)
	if end >= len(conf) {
		add = append(append(add, conf[m[2]:m[3]]...), line...)
		return splice(conf, end, end, add), false
	}
	if end > 0 && conf[end-1] == '\r' {
		end--
	}
	// Insert after the line's own ending: indentation + listen + ending.
	next := end + len(eol)
	add = append(append(append([]byte(nil), conf[m[2]:m[3]]...), line...), eol...)
	return splice(conf, next, next, add), false
}

func splice(b []byte, start, end int, text []byte) []byte {
	out := append([]byte(nil), b[:start]...)
	out = append(out, text...)
	return append(out, b[end:]...)
}
