package report

import "strings"

// serviceToken stands for the service name in a merged message.
const serviceToken = "SERVICE"

// MergeShared folds findings that one line of a file gives for several
// services (an anchor or extends shared by them) into one, for readers:
// same file, line, column, code and severity, and the same message once
// each service's name is replaced by SERVICE. The merged message names the
// services: "for each SERVICE of a, b, c: SERVICE/KEY ...". Text output and
// manual steps use it; JSON and SARIF keep one finding per service, since
// their consumers key a finding by its service.
func MergeShared(fs []Finding) []Finding {
	type group struct {
		first    int
		template string
		services []string
	}
	var order []*group
	byKey := map[string]*group{}
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		if f.Service == "" || strings.Contains(f.Service, ",") {
			out = append(out, f)
			continue
		}
		tmpl := replaceWord(f.Message, f.Service, serviceToken)
		key := strings.Join([]string{f.File, itoa(f.Line), itoa(f.Column), f.Severity, f.Code, tmpl}, "\x00")
		if g, ok := byKey[key]; ok {
			g.services = append(g.services, f.Service)
			continue
		}
		g := &group{first: len(out), template: tmpl, services: []string{f.Service}}
		byKey[key] = g
		order = append(order, g)
		out = append(out, f)
	}
	for _, g := range order {
		if len(g.services) < 2 {
			continue
		}
		f := &out[g.first]
		f.Service = strings.Join(g.services, ", ")
		f.Message = "for each " + serviceToken + " of " + f.Service + ": " + g.template
	}
	return out
}

// replaceWord replaces name where it stands as a whole name (not inside a
// longer name such as app in application or web in web-2).
func replaceWord(s, name, with string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, name)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(name)
		if (i == 0 || !nameByte(s[i-1])) && (end == len(s) || !nameByte(s[end])) {
			b.WriteString(s[:i] + with)
		} else {
			b.WriteString(s[:end])
		}
		s = s[end:]
	}
}

func nameByte(c byte) bool {
	return c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	if n == 0 {
		return "0"
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
