package dockerfile

import "testing"

func TestIgnored(t *testing.T) {
	ctx := "/p"
	for _, c := range []struct {
		ignore, path string
		want         bool
	}{
		{".env\n", "/p/.env", true},
		{"# secrets\n.env*\n!.env.example\n", "/p/.env.production", true},
		{"# secrets\n.env*\n!.env.example\n", "/p/.env.example", false},
		{"**/.env\n", "/p/app/.env", true},
		{"node_modules\n", "/p/.env", false},
		{"config\n", "/p/config/.env", true},
		{"", "/p/.env", false},
		{".env\n", "/elsewhere/.env", false},
	} {
		if got := Ignored([]byte(c.ignore), ctx, c.path); got != c.want {
			t.Errorf("%q, %s: ignored = %v, want %v", c.ignore, c.path, got, c.want)
		}
	}
}
