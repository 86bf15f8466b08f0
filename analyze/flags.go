package analyze

import (
	"maps"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/hostvar"
)

// checkHostVars rejects --host-var values that name no service or no
// variable of that service.
func (p *Project) checkHostVars(hostVars []string, bad func(string, ...any) error) error {
	for _, hv := range hostVars {
		service, key, ok := strings.Cut(hv, "/")
		if !ok || service == "" || key == "" {
			return bad("--host-var %q: want SERVICE/KEY (a service and one of its environment variables)", hv)
		}
		if _, ok := p.Model.Services[service]; !ok {
			return bad("--host-var %s: no such service (services: %s)", hv, strings.Join(slices.Sorted(maps.Keys(p.Model.Services)), ", "))
		}
		var keys []string
		for _, v := range p.ServiceEnv(service) {
			if v.Key == key {
				keys = nil
				break
			}
			keys = append(keys, v.Key)
		}
		if keys != nil || len(p.ServiceEnv(service)) == 0 {
			// A variable the service's code reads with a default (the
			// host only a code default, issue #21) may be named too: the
			// migration then sets it in the service's environment.
			if p.codeDefaultReads(service, key) {
				continue
			}
			return bad("--host-var %s: %s has no environment variable %s, and no code of %s reads %s with a default (it has: %s)", hv, service, key, service, key, strings.Join(slices.Sorted(slices.Values(keys)), ", "))
		}
	}
	return nil
}

// checkConsumers rejects --consumer values that name no service, no
// variable of that service, or no reader or form.
func (p *Project) checkConsumers(list []string, bad func(string, ...any) error) error {
	for _, c := range list {
		target, name, ok := strings.Cut(c, "=")
		if !ok || name == "" {
			return bad("--consumer %q: want SERVICE/KEY=READER or SERVICE/KEY=FORM (forms: empty, localhost; readers: %s)", c, readerNames())
		}
		if err := p.checkConsumerTarget(c, target, bad); err != nil {
			return err
		}
		if f, ok := consumer.ParseForm(name); ok && f != consumer.Encoded {
			continue
		}
		if consumer.ByName(name) == nil {
			return bad("--consumer %s: no reader or form %q (forms: empty, localhost; readers: %s)", c, name, readerNames())
		}
	}
	return nil
}

// checkConsumerTarget checks the SERVICE/KEY or KEY of a --consumer value
// c. A key with a dot names a value in a configuration file
// (database.url), known only once the files are read: only its service is
// checked.
func (p *Project) checkConsumerTarget(c, target string, bad func(string, ...any) error) error {
	service, key, ok := strings.Cut(target, "/")
	if !ok {
		if target == "" {
			return bad("--consumer %q: want SERVICE/KEY=READER, KEY=READER or a FORM instead of READER", c)
		}
		for name := range p.Model.Services {
			for _, v := range p.ServiceEnv(name) {
				if v.Key == target {
					return nil
				}
			}
		}
		if strings.Contains(target, ".") {
			return nil
		}
		return bad("--consumer %s: no service has an environment variable %s", c, target)
	}
	if strings.Contains(key, ".") {
		if _, ok := p.Model.Services[service]; !ok {
			return bad("--consumer %s: no such service (services: %s)", c, strings.Join(slices.Sorted(maps.Keys(p.Model.Services)), ", "))
		}
		return nil
	}
	return p.checkHostVars([]string{target}, func(format string, a ...any) error {
		return bad(strings.Replace(format, "--host-var", "--consumer", 1), a...)
	})
}

// checkConsumerNames checks only the syntax and the reader or form of
// each --consumer value (a run over several projects).
func (p *Project) checkConsumerNames(list []string, bad func(string, ...any) error) error {
	for _, c := range list {
		target, name, ok := strings.Cut(c, "=")
		if !ok || name == "" || target == "" {
			return bad("--consumer %q: want SERVICE/KEY=READER or SERVICE/KEY=FORM (forms: empty, localhost; readers: %s)", c, readerNames())
		}
		if f, ok := consumer.ParseForm(name); (!ok || f == consumer.Encoded) && consumer.ByName(name) == nil {
			return bad("--consumer %s: no reader or form %q (forms: empty, localhost; readers: %s)", c, name, readerNames())
		}
	}
	return nil
}

func readerNames() string {
	var names []string
	for _, r := range consumer.Readers() {
		names = append(names, r.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// codeDefaultReads reports whether the code that reaches service's
// container reads key with a fallback (evidence.Defaults), as
// os.getenv("POSTGRES_HOST", "db") does.
func (p *Project) codeDefaultReads(service, key string) bool {
	sc := hostvar.NewScopes(p.Project, p.ReadFile, nil)
	return slices.ContainsFunc(evidence.Defaults(sc.Of(service)), func(d evidence.Default) bool { return d.Key == key })
}
