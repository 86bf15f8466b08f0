package dialect

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// SocketRepair returns the repaired form of a (masked) socket value, or ""
// when it needs none, its dialect, the notes, and whether it is a libpq
// socket value at all (URI, DSN or PGHOST naming an absolute path). key is
// the variable's name; hostVar says the variable holds a database host
// (PGHOST, or an application's host variable).
func SocketRepair(key string, hostVar bool, val string) (out, name string, notes []Note, socket bool) {
	if out, notes, ok := NpgsqlRepairSSL(val); ok {
		// Npgsql, not libpq: PGSSLMODE is not its business (socket false).
		return out, Npgsql, notes, false
	}
	if d := Recognise(val); d != nil && d.SocketSSL != nil {
		dir, ok := d.SocketDir(val)
		if !ok {
			return "", "", nil, false
		}
		var err error
		if port, file := socketFilePort(dir); file {
			var more []Note
			out, more, err = d.ToSocket(val, path.Dir(dir), port)
			notes = append([]Note{fileHostNote(dir)}, more...)
		} else {
			out, notes, err = d.SocketSSL(val)
		}
		if err != nil {
			return "", d.Name, nil, true
		}
		return out, d.Name, notes, true
	}
	if hostVar && strings.HasPrefix(val, "/") {
		if _, file := socketFilePort(val); file {
			return path.Dir(val), PGHost, []Note{fileHostNote(val)}, key == "PGHOST"
		}
		return "", PGHost, nil, key == "PGHOST"
	}
	return "", "", nil, false
}

// socketFilePort reports whether p names a socket file (.s.PGSQL.<port>)
// and its port.
func socketFilePort(p string) (int, bool) {
	m := SocketFileRE.FindStringSubmatch(path.Base(p))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil && n > 0 && n < 65536
}

func fileHostNote(p string) Note {
	return Note{Code: "UDS134", Message: fmt.Sprintf("the host named the socket file %s; a host takes the socket directory (libpq: \"Not a directory\"), so it is now %s", p, path.Dir(p))}
}
