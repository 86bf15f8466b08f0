package evidence

import (
	"path/filepath"
	"regexp"
	"strings"
)

// A host can also come from a configuration file the program reads
// through a configuration library instead of the environment: ente's
// museum reads db.host from its credentials.yaml with viper and builds
// fmt.Sprintf("host=%s port=%d ...", viper.GetString("db.host"), ...) for
// lib/pq (server/pkg/utils/config/config.go GetPGInfo). The setting is then
// a host variable of that file, and the same Go readers decide it.

// settingReads are the Go configuration libraries whose reads of a dotted
// key FindSetting follows: the import that marks a file as using one, and
// the pattern of a read (%s: the key, quoted for the regexp). Viper keys
// are case-insensitive (viper.go: "Viper is case insensitive"), and so is
// koanf's default delimiter path.
var settingReads = []struct{ imp, read string }{
	// viper.GetString("db.host"), viper.Get("db.host"), v.GetString(...)
	{`"github.com/spf13/viper"`, `\.Get(?:String)?\(\s*"(?i:%s)"\s*\)`},
	// k.String("db.host"), k.Get("db.host")
	{`"github.com/knadh/koanf`, `\.(?:String|Get)\(\s*"(?i:%s)"\s*\)`},
}

// goDriverRE finds lib/pq or pgx required in a go.mod.
var goDriverRE = regexp.MustCompile(`(?m)^\s*(?:require\s+)?(github\.com/lib/pq|github\.com/jackc/pgx(?:/v[45])?|gorm\.io/driver/postgres)\s+v`)

// FindSetting returns the verdict about a setting of a configuration file
// (key: its dotted path, db.host) that the program's Go code reads through
// viper or koanf and hands to a pgx or lib/pq host: Host: or cfg.Host =
// the read in a file importing the driver, or a libpq keyword DSN
// (fmt.Sprintf("host=%s ...")) with the read as host, in a file importing
// the driver or in a module whose go.mod requires one (lib/pq, pgx,
// gorm.io/driver/postgres, which is pgx): no other Go driver reads a
// keyword DSN. Both take a host starting with / as the socket directory.
// ok is false when no such code is among the scope's files.
func FindSetting(s Scope, key string) (Verdict, bool) {
	moduleDriver := ""
	for _, f := range s.Files() {
		if filepath.Base(f) != "go.mod" {
			continue
		}
		if data, err := s.read(f); err == nil {
			if m := goDriverRE.FindSubmatch(data); m != nil {
				moduleDriver = driverName(string(m[1]))
				break
			}
		}
	}
	for _, f := range s.Files() {
		rel, _ := filepath.Rel(s.ProjectDir, f)
		rel = filepath.ToSlash(rel)
		if !goPGReader.match(rel) {
			continue
		}
		data, err := s.read(f)
		if err != nil || len(data) > MaxFileSize {
			continue
		}
		if v, ok := settingIn(data, key, moduleDriver); ok {
			v.File, v.Source = rel, SourceName
			return v, true
		}
	}
	return Verdict{}, false
}

// settingIn is FindSetting for one Go file.
func settingIn(data []byte, key, moduleDriver string) (Verdict, bool) {
	var read string
	for _, r := range settingReads {
		if strings.Contains(string(data), r.imp) {
			read = strings.ReplaceAll(r.read, "%s", regexp.QuoteMeta(key))
			break
		}
	}
	if read == "" {
		return Verdict{}, false
	}
	read = readOrAlias(data, `[A-Za-z_][\w.]*`+read, goAssign)
	driver := ""
	if imp := goPGImportRE.FindSubmatch(data); imp != nil {
		driver = "pgx"
		if string(imp[1]) == "lib/pq" {
			driver = "lib/pq"
		}
		if line, ok := firstLine(data, `\bHost\s*(?::|=)\s*`+read); ok {
			return Verdict{Directory: true, Driver: driver, Line: line, Reason: driver + "'s config Host reads the setting " + key}, true
		}
	}
	fromModule := driver == ""
	if fromModule {
		driver = moduleDriver
	}
	if driver == "" {
		return Verdict{}, false
	}
	for _, call := range sprintfCalls(data) {
		if fromModule && !dsnKeywordRE.MatchString(call.format) {
			continue // the driver is the module's: the format must be a libpq keyword DSN
		}
		if sprintfHostArg(call.format, call.args, read) {
			return Verdict{Directory: true, Driver: driver, Line: lineOf(data, call.at),
				Reason: "the " + driver + " keyword DSN's host=%s is the setting " + key}, true
		}
	}
	return Verdict{}, false
}

// dsnKeywordRE finds a libpq keyword other than host in a format.
var dsnKeywordRE = regexp.MustCompile(`(^|\s)(port|dbname|user|password|sslmode)=`)

// driverName names a go.mod requirement as the readers do.
func driverName(mod string) string {
	if mod == "github.com/lib/pq" {
		return "lib/pq"
	}
	return "pgx"
}
