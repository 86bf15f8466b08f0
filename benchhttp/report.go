package benchhttp

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/template"

	"github.com/uds-migrate/uds-migrate/bench"
)

// The layouts follow bench's report templates (templates/report/), with
// requests/s for queries/s and the proxy's upstream mode for the query
// protocol.
const textLayout = `uds-migrate bench http: {{.Concurrency}} concurrent client{{if ne .Concurrency 1}}s{{end}}, {{.Client}} client, keep-alive to the front
target:   {{.Target}}
  tcp     {{.TCP}}
  socket  {{.Socket}}
{{- if .Upstream}}
upstream: {{.Upstream}}
{{- end}}
{{- if .Note}}
note:     {{.Note}}
{{- end}}
method:   {{.Rounds}} interleaved rounds of {{runs .}} per transport, {{printf "%.3g" .WarmupSeconds}} s warm-up each discarded
machine:  {{.Machine}}

transport  requests/s     p50 µs     p95 µs     p99 µs    mean µs
{{- range .Transports}}
{{printf "%-9s" .Transport}} {{printf "%11.1f" .RPS}} {{us .Latency.P50}} {{us .Latency.P95}} {{us .Latency.P99}} {{us .Latency.Mean}}
{{- end}}

socket/TCP requests/s ratio: {{printf "%.3f" .Ratio.Estimate}} (95% CI {{printf "%.3f" .Ratio.Low}}–{{printf "%.3f" .Ratio.High}}, median of {{len .RoundRatios}} per-round paired ratios)
verdict: {{.VerdictLine}}
`

const markdownLayout = `### uds-migrate bench http

{{.Concurrency}} concurrent client{{if ne .Concurrency 1}}s{{end}} ({{.Client}}, keep-alive to the front), {{.Rounds}} interleaved rounds of {{runs .}} per transport ({{printf "%.3g" .WarmupSeconds}} s warm-up discarded). Target: {{.Target}}. Machine: {{.Machine}}.{{if .Upstream}} Upstream: {{.Upstream}}.{{end}}{{if .Note}} Note: {{.Note}}.{{end}}

| transport | path | requests/s | p50 µs | p95 µs | p99 µs | mean µs |
| --- | --- | ---: | ---: | ---: | ---: | ---: |
{{- range .Transports}}
| {{.Transport}} | ` + "`{{.Endpoint}}`" + ` | {{printf "%.1f" .RPS}} | {{us .Latency.P50}} | {{us .Latency.P95}} | {{us .Latency.P99}} | {{us .Latency.Mean}} |
{{- end}}

**socket/TCP ratio {{printf "%.3f" .Ratio.Estimate}}** (95% CI {{printf "%.3f" .Ratio.Low}}–{{printf "%.3f" .Ratio.High}}, median of {{len .RoundRatios}} per-round paired ratios): {{.VerdictLine}}.
`

var layouts = map[string]*template.Template{}

func init() {
	funcs := template.FuncMap{
		"us": func(v float64) string { return strings.TrimSpace(bench.FormatUS(v)) },
		"runs": func(r *Report) string {
			if r.RequestsPerRun > 0 {
				return fmt.Sprintf("%d requests", r.RequestsPerRun)
			}
			return fmt.Sprintf("%.3g s", r.RoundSeconds)
		},
	}
	text := template.FuncMap{"us": bench.FormatUS}
	layouts["text"] = template.Must(template.New("text").Funcs(funcs).Funcs(text).Parse(textLayout))
	layouts["markdown"] = template.Must(template.New("markdown").Funcs(funcs).Parse(markdownLayout))
}

// Render writes r as text, json or markdown (bench.Formats); an unknown
// format is an error and writes nothing.
func (r *Report) Render(w io.Writer, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	t, ok := layouts[format]
	if !ok {
		return fmt.Errorf("unknown format %q (%s)", format, strings.Join(bench.Formats, ", "))
	}
	return t.Execute(w, r)
}
