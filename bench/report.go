package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/template"
	"time"

	"github.com/uds-migrate/uds-migrate/templates"
)

// Report is what a bench run found; its JSON form is the --format json
// output. Times are in seconds, latencies in microseconds.
type Report struct {
	Workload string `json:"workload"`
	// Target says what was measured, e.g. "embedded PostgreSQL 15.8".
	Target string `json:"target"`
	// TCP and Socket are the endpoints, passwords masked.
	TCP    string `json:"tcp"`
	Socket string `json:"socket"`
	Client string `json:"client"`
	Mode   Mode   `json:"mode"`
	Conns  int    `json:"conns"`
	Rounds int    `json:"rounds"`

	RoundSeconds  float64 `json:"round_seconds"`
	WarmupSeconds float64 `json:"warmup_seconds"`
	SetupSeconds  float64 `json:"setup_seconds"`
	// SetupNote says what the set-up did ("created 100-row tables").
	SetupNote string `json:"setup_note"`

	Transports []TransportStats `json:"transports"`
	// RoundRatios are the per-round socket/TCP queries/s ratios, in round
	// order.
	RoundRatios []float64 `json:"round_ratios"`
	Ratio       Interval  `json:"ratio"`
	Verdict     Verdict   `json:"verdict"`
	// Seed is the bootstrap seed (BootstrapSeed).
	Seed uint64 `json:"bootstrap_seed"`
}

// TransportStats pools every counted round of one transport.
type TransportStats struct {
	Transport Transport `json:"transport"`
	Endpoint  string    `json:"endpoint"`
	Queries   int64     `json:"queries"`
	Seconds   float64   `json:"seconds"`
	// QPS is Queries / Seconds over all counted rounds.
	QPS float64 `json:"queries_per_second"`
	// Latency has exact quantiles of every counted query; nil when the
	// client reports only a mean (pgbench), see MeanUS.
	Latency *Latency `json:"latency,omitempty"`
	MeanUS  float64  `json:"mean_latency_us"`
}

// Analyze pools the rounds per transport and computes the socket/TCP ratio
// interval and verdict. The caller fills in the descriptive fields.
func Analyze(rounds []Round) (*Report, error) {
	r := &Report{Rounds: len(rounds), Seed: BootstrapSeed}
	for _, t := range []Transport{TCP, Socket} {
		var st TransportStats
		st.Transport = t
		var lat []time.Duration
		var sumMean float64
		for _, rd := range rounds {
			s := rd.TCP
			if t == Socket {
				s = rd.Socket
			}
			st.Queries += s.Queries
			st.Seconds += s.Elapsed.Seconds()
			lat = append(lat, s.Latencies...)
			sumMean += float64(s.MeanLatency) / float64(time.Microsecond) * float64(s.Queries)
		}
		if st.Seconds > 0 {
			st.QPS = float64(st.Queries) / st.Seconds
		}
		if st.Queries > 0 {
			st.MeanUS = sumMean / float64(st.Queries)
		}
		if len(lat) > 0 {
			l := Summarize(lat)
			st.Latency = &l
			st.MeanUS = l.Mean
		}
		r.Transports = append(r.Transports, st)
	}
	for _, rd := range rounds {
		r.RoundRatios = append(r.RoundRatios, rd.Ratio())
	}
	iv, err := MedianCI(r.RoundRatios, 0.95, BootstrapSeed)
	if err != nil {
		return nil, err
	}
	r.Ratio = iv
	r.Verdict = Judge(iv)
	return r, nil
}

// VerdictLine is the verdict in words with the effect size, e.g. "socket
// faster: +14.2% queries/s (95% CI +11.0% to +17.3%)".
func (r *Report) VerdictLine() string { return DescribeRatio(r.Ratio, r.Verdict, "queries/s") }

// DescribeRatio words a socket/TCP throughput ratio interval and its
// verdict as a signed percentage change of unit (e.g. "queries/s",
// "requests/s"): "socket faster: +14.2% queries/s (95% CI +11.0% to
// +17.3%)", or "no measurable difference (socket +1.0% queries/s, 95% CI
// -3.0% to +5.0%, includes 0)" when v is NoDifference. Other benchmarks
// (package benchhttp) share it so every report words a verdict alike.
func DescribeRatio(iv Interval, v Verdict, unit string) string {
	ci := fmt.Sprintf("95%% CI %+.1f%% to %+.1f%%", 100*(iv.Low-1), 100*(iv.High-1))
	if v == NoDifference {
		return fmt.Sprintf("no measurable difference (socket %+.1f%% %s, %s, includes 0)", 100*(iv.Estimate-1), unit, ci)
	}
	return fmt.Sprintf("%s: %+.1f%% %s (%s)", v, 100*(iv.Estimate-1), unit, ci)
}

// Formats lists the --format values Render accepts.
var Formats = []string{"text", "json", "markdown"}

// Render writes r as text, json or markdown.
func (r *Report) Render(w io.Writer, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "text", "markdown":
		layout, err := templates.Report(format)
		if err != nil {
			return err
		}
		t, err := template.New(format).Funcs(template.FuncMap{"us": FormatUS, "nan": math.NaN}).Parse(layout)
		if err != nil {
			return err
		}
		return t.Execute(w, r)
	}
	return fmt.Errorf("unknown format %q (%s)", format, strings.Join(Formats, ", "))
}

// FormatUS right-aligns a microsecond figure v in 10 columns with one
// decimal ("     123.4"); "n/a", right-aligned, for NaN (a client that
// reports no quantiles). Report layouts use it as the template function us.
func FormatUS(v float64) string {
	if math.IsNaN(v) {
		return fmt.Sprintf("%10s", "n/a")
	}
	return fmt.Sprintf("%10.1f", v)
}
