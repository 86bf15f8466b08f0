package configfile

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
)

// A Rails database.yml may pick its adapter and host in ERB code at the
// top and write only local variables below (solidus' dummy app,
// core/lib/spree/testing_support/dummy_app/database.yml):
//
//	<%
//	  adapter =
//	    case ENV['DB']
//	    when 'postgresql', 'postgres' then 'postgresql'
//	    ...
//	    end
//	  db_host =
//	    case adapter
//	    when 'mysql2' then ENV['DB_MYSQL_HOST'] || ENV['DB_HOST']
//	    when 'postgresql' then ENV['DB_POSTGRES_HOST'] || ENV['DB_HOST']
//	    else ENV['DB_HOST']
//	    end %>
//	default: &default
//	  adapter: <%= adapter %>
//	  <% unless db_host.blank? %>host: <%= db_host %><% end %>
//
// Control tags at the start of a line leave no YAML to parse, so this form
// is read from the ERB code and the lines that write `adapter:` and
// `host:`, not through the YAML sections.

// erbCaseRE is an assignment of a case expression: NAME = case SUBJECT
// ... end, over several lines.
var erbCaseRE = regexp.MustCompile(`(?s)\b([a-z_][A-Za-z0-9_]*)\s*=\s*case\s+([^\n]+?)\s*\n(.*?)\n\s*end\b`)

// erbWhenRE and erbElseRE are one branch of a case expression, on a line.
var (
	erbWhenRE = regexp.MustCompile(`^\s*when\s+(.+?)\s+then\s+(.+?)\s*$`)
	erbElseRE = regexp.MustCompile(`^\s*else\s+(.+?)\s*$`)
)

// erbCase is a local variable assigned a case expression.
type erbCase struct {
	subject  string
	branches []erbBranch
}

// erbBranch is one when (or else: When nil) of a case expression, with
// its code and the file line it is on.
type erbBranch struct {
	when []string // the literals compared with the subject, unquoted
	then string
	line int
}

// erbCases reads the case assignments of the ERB code tags of data.
func erbCases(data []byte, tags []ERBTag) map[string]erbCase {
	out := map[string]erbCase{}
	for _, t := range tags {
		code := data[t.Start:t.End]
		if bytes.HasPrefix(code, []byte("<%=")) || bytes.HasPrefix(code, []byte("<%#")) {
			continue
		}
		for _, m := range erbCaseRE.FindAllSubmatchIndex(code, -1) {
			c := erbCase{subject: string(code[m[4]:m[5]])}
			body := m[6]
			for _, l := range strings.Split(string(code[m[6]:m[7]]), "\n") {
				line := lineOf(data, t.Start+body)
				body += len(l) + 1
				if w := erbWhenRE.FindStringSubmatch(l); w != nil {
					var lits []string
					for _, lit := range strings.Split(w[1], ",") {
						lits = append(lits, strings.Trim(strings.TrimSpace(lit), `'"`))
					}
					c.branches = append(c.branches, erbBranch{when: lits, then: w[2], line: line})
				} else if e := erbElseRE.FindStringSubmatch(l); e != nil {
					c.branches = append(c.branches, erbBranch{then: e[1], line: line})
				}
			}
			out[string(code[m[2]:m[3]])] = c
		}
	}
	return out
}

// erbLocalRE is an output tag that writes one local variable.
var erbLocalRE = regexp.MustCompile(`^<%=\s*([a-z_][A-Za-z0-9_]*)\s*%>$`)

// erbSettingVar returns the local variables that output tags write as
// the value of setting (adapter, host): on a line that reads `setting: `
// once its control tags are left out.
func erbSettingVar(data []byte, tags []ERBTag, setting string) []string {
	var out []string
	for _, t := range tags {
		m := erbLocalRE.FindSubmatch(data[t.Start:t.End])
		if m == nil {
			continue
		}
		lineStart := bytes.LastIndexByte(data[:t.Start], '\n') + 1
		var before []byte
		for off := lineStart; off < t.Start; {
			if i := slices.IndexFunc(tags, func(o ERBTag) bool { return o.Start == off }); i >= 0 {
				off = tags[i].End
				continue
			}
			before = append(before, data[off])
			off++
		}
		if strings.TrimSpace(string(before)) == setting+":" {
			out = append(out, string(m[1]))
		}
	}
	return out
}

// ERBCaseHost reports whether a database.yml in that form hands variable
// key to the host setting only where the adapter is one of adapters
// (postgresql, postgis): the adapter is written from a local variable
// whose case expression gives one of them, the host from a local variable
// whose case expression on that adapter variable reads key in branches
// that name only those adapters (never in else, nor in another adapter's
// branch). line is the first such branch's line.
func ERBCaseHost(data []byte, key string, adapters []string) (line int, ok bool) {
	if bytes.HasPrefix(data, utf8BOM) {
		data = data[len(utf8BOM):]
	}
	tags, err := ERBTags(data)
	if err != nil || len(tags) == 0 {
		return 0, false
	}
	cases := erbCases(data, tags)
	reads := regexp.MustCompile(`ENV(?:\.fetch\(\s*|\[\s*)["']` + regexp.QuoteMeta(key) + `["']`)
	for _, av := range erbSettingVar(data, tags, "adapter") {
		ac, ok := cases[av]
		if !ok || !slices.ContainsFunc(ac.branches, func(b erbBranch) bool { return slices.Contains(adapters, strings.Trim(b.then, `'"`)) }) {
			continue
		}
		for _, hv := range erbSettingVar(data, tags, "host") {
			hc, ok := cases[hv]
			if !ok || hc.subject != av {
				continue
			}
			first := 0
			for _, b := range hc.branches {
				if !reads.MatchString(b.then) {
					continue
				}
				if len(b.when) == 0 || slices.ContainsFunc(b.when, func(w string) bool { return !slices.Contains(adapters, w) }) {
					return 0, false // read for another adapter too
				}
				if first == 0 {
					first = b.line
				}
			}
			if first != 0 {
				return first, true
			}
		}
	}
	return 0, false
}

// lineOf returns the 1-based line of byte offset off of data.
func lineOf(data []byte, off int) int { return bytes.Count(data[:off], []byte("\n")) + 1 }
