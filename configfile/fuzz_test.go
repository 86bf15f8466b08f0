package configfile

import "testing"

// FuzzFormats: no reader panics, and every value range lies inside the
// input (a caller splices at these offsets).
func FuzzFormats(f *testing.F) {
	for _, s := range []string{
		"a=b\nc : d\\\n  e\n# x\n", "k\\", "spring:\n  datasource:\n    url: 'x'\n",
		`{"a": {"b": ["c", 1]}}`, "{\n a: b\n c: 'd'\n e: '''\n x\n '''\n}\n",
		"production:\n  host: <%= ENV.fetch(\"H\") { \"db\" } %>\n  adapter: postgresql\n", "<% x",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, read := range []func([]byte) ([]Value, error){Properties, YAML, JSON, HJSON} {
			vals, err := read(data)
			if err != nil {
				continue
			}
			for _, v := range vals {
				if v.Start < 0 || v.End < v.Start || v.End > len(data) {
					t.Fatalf("%q: value %q range [%d,%d) outside %d bytes", data, v.Key, v.Start, v.End, len(data))
				}
			}
		}
		for _, key := range []string{"host", "url", "adapter"} {
			if v, ok, err := RailsSetting(data, "production", key); err == nil && ok && (v.End > len(data) || v.Start > v.End) {
				t.Fatalf("%q: rails %s range [%d,%d)", data, key, v.Start, v.End)
			}
		}
		_, _, _, _ = RailsHost(data, "production")
	})
}
