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

// Schema names the version of the --format json output
// (docs/bench.schema.json): a field changes meaning or disappears only
// with a new version.
const Schema = "uds-migrate.bench/v1"

// Report is what a bench run found; its JSON form is the --format json
// output. Times are in seconds, latencies in microseconds (fields ending
// in Us) or milliseconds (Ms); JSON names are camelCase, as in plan JSON.
type Report struct {
	Schema   string `json:"schema"`
	Workload string `json:"workload"`
	// Target says what was measured, e.g. "embedded PostgreSQL 15.8".
	Target string `json:"target"`
	// TCP and Socket are the endpoints, passwords masked.
	TCP    string `json:"tcp"`
	Socket string `json:"socket"`
	Mode   Mode   `json:"mode"`
	Conns  int    `json:"conns"`
	Rounds int    `json:"rounds"`
	// QueriesPerTransaction is the SQL commands in one pass of the script:
	// pgbench's transaction.
	QueriesPerTransaction int `json:"queriesPerTransaction"`

	RoundSeconds  float64 `json:"roundSeconds"`
	WarmupSeconds float64 `json:"warmupSeconds"`
	SetupSeconds  float64 `json:"setupSeconds"`
	// SetupNote says what the set-up did ("three 100-row tables").
	SetupNote string `json:"setupNote"`
	// Machine is the load the run shared the machine with.
	Machine Machine `json:"machine"`
	// Clients holds one result per client, in --client order; their runs
	// were interleaved on one server.
	Clients []ClientResult `json:"clients"`
	// Comparisons compares every client after the first with the first,
	// round by round; empty with one client.
	Comparisons []Comparison `json:"comparisons,omitempty"`
	// GainDifferences compares every client's socket gain after the first
	// with the first's, round by round; empty with one client.
	GainDifferences []GainDifference `json:"gainDifferences,omitempty"`
	// Seed is the bootstrap seed (BootstrapSeed).
	Seed uint64 `json:"bootstrapSeed"`
	// Floor is each transport's round-trip floor, measured after the
	// rounds on the same server; nil where the clients run in containers.
	Floor *Floor `json:"floor,omitempty"`
}

// ClientResult is one client's rounds, pooled and paired.
type ClientResult struct {
	Client     string           `json:"client"`
	Transports []TransportStats `json:"transports"`
	// Limit is the most the floor lets the socket add for this client's
	// transactions, beside the measured gain; nil without a floor.
	Limit *Limit `json:"limit,omitempty"`
	// RoundRatios are the per-round socket/TCP queries/s ratios, in round
	// order.
	RoundRatios []float64 `json:"roundRatios"`
	// Ratio is the verdict's figure: the median of RoundRatios with its
	// bootstrap interval.
	Ratio Interval `json:"ratio"`
	// PooledRatio is the table's figure: socket queries/s ÷ TCP queries/s
	// over all rounds pooled. It weighs long or fast rounds more than
	// Ratio does, so the two can differ in sign when the rounds are noisy.
	PooledRatio float64 `json:"pooledRatio"`
	// Spread is RatioSpread(RoundRatios).
	Spread float64 `json:"spread"`
	// IntervalVerdict is Judge(Ratio), what the interval alone says.
	IntervalVerdict Verdict `json:"intervalVerdict"`
	// Verdict is Decide's: IntervalVerdict unless the rounds were too few
	// or the figure unreliable (Warnings say why).
	Verdict  Verdict  `json:"verdict"`
	Warnings []string `json:"warnings"`
}

// TransportStats pools every counted round of one transport.
type TransportStats struct {
	Transport Transport `json:"transport"`
	Endpoint  string    `json:"endpoint"`
	Queries   int64     `json:"queries"`
	Seconds   float64   `json:"seconds"`
	// QPS is Queries / Seconds over all counted rounds.
	QPS float64 `json:"queriesPerSecond"`
	// TPS is QPS divided by the queries per transaction, as pgbench's tps.
	TPS float64 `json:"transactionsPerSecond"`
	// Latency has exact quantiles of every counted query; nil when the
	// client reports only a mean (pgbench), see MeanUS.
	Latency *Latency `json:"latency,omitempty"`
	MeanUS  float64  `json:"meanLatencyUs"`
	// MsPerTransaction is the mean latency of one pass of the script, as
	// pgbench's "latency average".
	MsPerTransaction float64 `json:"msPerTransaction"`
	// Latencies are every counted query's round trip in microseconds, for
	// plots; not in JSON.
	Latencies []float64 `json:"-"`
}

// Comparison is one client's queries/s over a baseline client's, per
// transport: the median of per-round ratios with its interval.
type Comparison struct {
	Client    string    `json:"client"`
	Baseline  string    `json:"baseline"`
	Transport Transport `json:"transport"`
	// RoundRatios are Client ÷ Baseline queries/s, in round order.
	RoundRatios []float64 `json:"roundRatios"`
	Ratio       Interval  `json:"ratio"`
}

// Analyze pools one client's rounds per transport and computes the
// socket/TCP ratio interval and verdict; m is the machine's load (its Busy
// makes the figure unreliable). queriesPerTx converts queries to
// transactions (1 when there is no script). The caller names the client.
func Analyze(rounds []Round, m Machine, queriesPerTx int) (*ClientResult, error) {
	r := &ClientResult{Warnings: []string{}}
	q := float64(max(queriesPerTx, 1))
	for _, t := range []Transport{TCP, Socket} {
		st := pool(rounds, t)
		st.TPS = st.QPS / q
		st.MsPerTransaction = st.MeanUS * q / 1000
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
	if r.Transports[0].QPS > 0 {
		r.PooledRatio = r.Transports[1].QPS / r.Transports[0].QPS
	}
	r.Spread = RatioSpread(r.RoundRatios)
	var busy []string
	if b := m.Busy(); b != "" {
		busy = append(busy, b)
	}
	if r.Spread > MaxSpread {
		busy = append(busy, fmt.Sprintf("paired ratios spread %.1f%% between rounds (interquartile range ÷ median), beyond %.0f%%", 100*r.Spread, 100*MaxSpread))
	}
	r.IntervalVerdict = Judge(iv)
	r.Verdict = Decide(iv, len(rounds), strings.Join(busy, "; "))
	if len(rounds) < MinRounds {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d rounds: a verdict needs at least %d", len(rounds), MinRounds))
	}
	r.Warnings = append(r.Warnings, busy...)
	return r, nil
}

// pool sums one transport's samples over the rounds.
func pool(rounds []Round, t Transport) TransportStats {
	st := TransportStats{Transport: t}
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
		st.Latencies = make([]float64, len(lat))
		for i, d := range lat {
			st.Latencies[i] = float64(d) / float64(time.Microsecond)
		}
	}
	return st
}

// Compare returns client's queries/s over baseline's, per transport, from
// rounds interleaved in one run (InterleaveClients).
func Compare(client, baseline string, rounds, base []Round) ([]Comparison, error) {
	var out []Comparison
	for _, t := range []Transport{TCP, Socket} {
		c := Comparison{Client: client, Baseline: baseline, Transport: t}
		for i := range rounds {
			a, b := rounds[i].TCP, base[i].TCP
			if t == Socket {
				a, b = rounds[i].Socket, base[i].Socket
			}
			c.RoundRatios = append(c.RoundRatios, a.QPS()/b.QPS())
		}
		iv, err := MedianCI(c.RoundRatios, 0.95, BootstrapSeed)
		if err != nil {
			return nil, err
		}
		c.Ratio = iv
		out = append(out, c)
	}
	return out, nil
}

// GainDifference says whether a client shows what the transport gives as
// a baseline client (pgbench) does: the client's socket/TCP ratio minus the
// baseline's, round by round, in percentage points (+2.0: the client's
// socket gain is 2 points above the baseline's in the same round).
type GainDifference struct {
	Client   string `json:"client"`
	Baseline string `json:"baseline"`
	// RoundPoints are 100 × (client's ratio − baseline's ratio), in round
	// order.
	RoundPoints []float64 `json:"roundPoints"`
	// Points is their median with its bootstrap interval.
	Points Interval `json:"points"`
}

// CompareGains is client's GainDifference from baseline over the same
// rounds.
func CompareGains(client, baseline string, rounds, base []Round) (GainDifference, error) {
	g := GainDifference{Client: client, Baseline: baseline}
	for i := range rounds {
		g.RoundPoints = append(g.RoundPoints, 100*(rounds[i].Ratio()-base[i].Ratio()))
	}
	iv, err := MedianCI(g.RoundPoints, 0.95, BootstrapSeed)
	g.Points = iv
	return g, err
}

// VerdictLine is the verdict in words with the effect size, e.g. "socket
// faster: +14.2% queries/s (95% CI +11.0% to +17.3%)"; for TooFewRounds
// and Unreliable it says why, then what the interval alone says.
func (r *ClientResult) VerdictLine() string {
	line := DescribeRatio(r.Ratio, r.IntervalVerdict, "queries/s")
	switch r.Verdict {
	case TooFewRounds, Unreliable:
		return fmt.Sprintf("%s (%s); the interval alone says: %s", r.Verdict, strings.Join(r.Warnings, "; "), line)
	}
	return line
}

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
		t, err := template.New(format).Funcs(template.FuncMap{"us": FormatUS, "nan": math.NaN, "pct": pct, "mulf": func(a, b float64) float64 { return a * b }}).Parse(layout)
		if err != nil {
			return err
		}
		return t.Execute(w, r)
	}
	return fmt.Errorf("unknown format %q (%s)", format, strings.Join(Formats, ", "))
}

// pct words a ratio as a signed percentage: 1.052 is "+5.2%".
func pct(ratio float64) string { return fmt.Sprintf("%+.1f%%", 100*(ratio-1)) }

// FormatUS right-aligns a microsecond figure v in 10 columns with one
// decimal ("     123.4"); "n/a", right-aligned, for NaN (a client that
// reports no quantiles). Report layouts use it as the template function us.
func FormatUS(v float64) string {
	if math.IsNaN(v) {
		return fmt.Sprintf("%10s", "n/a")
	}
	return fmt.Sprintf("%10.1f", v)
}
