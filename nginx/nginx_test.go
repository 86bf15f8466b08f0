package nginx

import (
	"errors"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/internal/textedit"
)

const sample = "# proxy for the app\nupstream backend {\n\tserver app:8080 max_fails=3; # primary\n\tserver 'static.example:80' backup;\n\tkeepalive 8;\n}\n\nserver {\n\tlisten 80;\n\tinclude /etc/nginx/snippets/*.conf;\n\tlocation / {\n\t\tproxy_pass http://backend;\n\t}\n\tlocation /api/ {\n\t\tproxy_set_header Host $host;\n\t\tproxy_pass http://api:9000/v1/;\n\t}\n\tlocation /raw {\n\t\tproxy_pass http://api:9000;\n\t}\n\tlocation /dyn {\n\t\tset $up http://api:9000;\n\t\tproxy_pass $up;\n\t}\n\tlocation /py { uwsgi_pass uwsgi://py:3031; include uwsgi_params; }\n\tlocation ~ \\.php$ { fastcgi_pass php:9000; }\n\tlocation /g { grpc_pass grpc://g:50051; }\n\tlocation /done { proxy_pass http://unix:/run/app/app.sock:/; }\n\tlocation /lua { content_by_lua_block { ngx.say(\"}\") } }\n}\n"

func TestTokenizeKeepsPositions(t *testing.T) {
	data := []byte(sample)
	toks, err := Tokenize(data)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	prev := 0
	for _, tk := range toks {
		b.Write(data[prev:tk.Start])
		b.WriteString(tk.Raw(data))
		prev = tk.End
	}
	b.Write(data[prev:])
	if b.String() != sample {
		t.Fatalf("tokens do not cover the file: got\n%s", b.String())
	}
	for _, tk := range toks {
		if tk.Kind == Word && tk.Quote == 0 && tk.Raw(data) != tk.Value {
			t.Errorf("unquoted word %q has value %q", tk.Raw(data), tk.Value)
		}
	}
}

func TestTokenizeQuotesAndVariables(t *testing.T) {
	toks, err := Tokenize([]byte(`set "a b\"c" ${x}y;`))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, tk := range toks {
		got = append(got, tk.Value)
	}
	want := []string{"set", `a b"c`, "${x}y", ";"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"server {\n listen 80;\n", "3:1: unexpected end of file"},
		{"listen 80;\n}\n", "2:1: unexpected \"}\""},
		{"a \"b\"c;", "1:6: unexpected 'c'"},
		{"a 'b;\n", "1:3: unterminated ' string"},
	} {
		_, err := Parse([]byte(tc.in))
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q...", tc.in, err, tc.want)
		}
	}
}

func TestTargets(t *testing.T) {
	c, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	ups := map[string]bool{}
	for _, u := range c.Upstreams() {
		ups[u] = true
	}
	var got []string
	for _, tg := range c.Targets(ups, UpstreamProtocols([]*Config{c})) {
		s := tg.String() + " host=" + tg.Host
		if tg.Variable {
			s += " variable"
		}
		if !tg.HostHeader {
			s += " default-host"
		}
		got = append(got, s+" proto="+tg.Protocol)
	}
	want := []string{
		"3:9: server app:8080 host=app proto=http",
		"4:9: server static.example:80 host=static.example proto=http",
		"16:14: proxy_pass http://api:9000/v1/ host=api proto=http",
		"19:14: proxy_pass http://api:9000 host=api default-host proto=http",
		"23:14: proxy_pass $up host= variable default-host proto=http",
		"25:28: uwsgi_pass uwsgi://py:3031 host=py proto=uwsgi",
		"26:35: fastcgi_pass php:9000 host=php proto=fastcgi",
		"27:26: grpc_pass grpc://g:50051 host=g proto=grpc",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("targets:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSocketForm(t *testing.T) {
	c, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	const sock = "/run/app/app.sock"
	var edits []textedit.Edit
	for _, tg := range c.Targets(map[string]bool{"backend": true}, nil) {
		if tg.Variable || tg.Host == "static.example" {
			continue
		}
		edits = append(edits, tg.Replace(tg.SocketForm(sock)))
	}
	out, err := textedit.Apply([]byte(sample), edits)
	if err != nil {
		t.Fatal(err)
	}
	want := sample
	for _, r := range [][2]string{
		{"server app:8080 max_fails=3; # primary", "server unix:/run/app/app.sock max_fails=3; # primary"},
		{"proxy_pass http://api:9000/v1/;", "proxy_pass http://unix:/run/app/app.sock:/v1/;"},
		{"proxy_pass http://api:9000;", "proxy_pass http://unix:/run/app/app.sock;"},
		{"uwsgi_pass uwsgi://py:3031;", "uwsgi_pass uwsgi://unix:/run/app/app.sock;"},
		{"fastcgi_pass php:9000;", "fastcgi_pass unix:/run/app/app.sock;"},
		{"grpc_pass grpc://g:50051;", "grpc_pass grpc://unix:/run/app/app.sock;"},
	} {
		if !strings.Contains(want, r[0]) {
			t.Fatalf("sample lacks %q", r[0])
		}
		want = strings.Replace(want, r[0], r[1], 1)
	}
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// The rewritten file has nothing left to rewrite but the variable and
	// the external server.
	c2, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range c2.Targets(map[string]bool{"backend": true}, nil) {
		if !tg.Variable && tg.Host != "static.example" {
			t.Errorf("left after rewrite: %v", tg)
		}
	}
}

func TestReplaceKeepsQuotes(t *testing.T) {
	c, err := Parse([]byte("upstream u { server \"app:8080\"; }\n"))
	if err != nil {
		t.Fatal(err)
	}
	tg := c.Targets(nil, nil)[0]
	out, _ := textedit.Apply(c.Data, []textedit.Edit{tg.Replace(tg.SocketForm("/s/a.sock"))})
	if string(out) != "upstream u { server \"unix:/s/a.sock\"; }\n" {
		t.Errorf("got %q", out)
	}
}

// TestPosition: Config.Position gives Position's answer at every offset.
func TestPosition(t *testing.T) {
	for _, data := range []string{sample, "", "\n", "a\n\nb", "x;\r\n"} {
		c := &Config{Data: []byte(data)}
		for off := 0; off <= len(data); off++ {
			l1, c1 := Position([]byte(data), off)
			if l2, c2 := c.Position(off); l1 != l2 || c1 != c2 {
				t.Fatalf("%q at %d: Position %d:%d, Config.Position %d:%d", data, off, l1, c1, l2, c2)
			}
		}
	}
}

// TestLimits: nesting past MaxDepth and more than MaxDirectives directives
// are refused at the position of the block or directive past the limit.
func TestLimits(t *testing.T) {
	deep := strings.Repeat("location / {\n", MaxDepth) + "proxy_pass http://app;\n" + strings.Repeat("}\n", MaxDepth)
	if _, err := Parse([]byte(deep)); err != nil {
		t.Fatalf("%d levels: %v", MaxDepth, err)
	}
	_, err := Parse([]byte("server {\n" + deep + "}\n"))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != MaxDepth+1 || !strings.Contains(se.Msg, "nested more than 32 deep") {
		t.Errorf("%d levels: %v", MaxDepth+1, err)
	}
	many := strings.Repeat("a;", MaxDirectives)
	if _, err := Parse([]byte(many)); err != nil {
		t.Fatalf("%d directives: %v", MaxDirectives, err)
	}
	if _, err := Parse([]byte(many + "b;")); !errors.As(err, &se) || se.Col != 2*MaxDirectives+2 || !strings.Contains(se.Msg, "more than 100000 directives") {
		t.Errorf("%d directives: %v", MaxDirectives+1, err)
	}
}

func TestInConfDir(t *testing.T) {
	for p, want := range map[string]bool{
		"/etc/nginx":        true,
		"/etc/nginx/conf.d": true,
		"/usr/local/openresty/nginx/conf/nginx.conf": true,
		"/etc/nginx-other":                           false,
		"/srv/www":                                   false,
	} {
		if got := InConfDir(p); got != want {
			t.Errorf("InConfDir(%q) = %v, want %v", p, got, want)
		}
	}
}
