package bench

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// MaxSpread is the largest round-to-round spread of the paired ratios
// (interquartile range ÷ median, RatioSpread) a report still trusts.
// Calibrated on this project's 2-core VM (docs/benchmarks.md,
// "Calibrating the busy-machine checks"): on a quiet machine (load average
// ≤ 1.9) eight client runs spread 8.2-21.2%; under other work (load
// average 7-25) this build's runs spread 18-71%, most above 40%. 0.30
// sits above every quiet figure, with room for this build's shorter
// rounds; the other-processes check (MaxOtherCores) catches the busy runs
// whose spread stays low.
const MaxSpread = 0.30

// MaxOtherCores is the most CPU other processes may use during the rounds
// (Machine.OtherCores, in cores) before a verdict is unreliable: a busy
// loop on one core shows as about 1; other work at load averages of 7-25
// showed as 1.4-1.6 (docs/benchmarks.md).
const MaxOtherCores = 0.3

// Machine is the load the run shared the machine with. Load averages are
// the kernel's 1-minute figure (/proc/loadavg), -1 where it is unknown
// (not Linux).
type Machine struct {
	Cores int `json:"cores"`
	// LoadBefore is read before the first run: other work, not the bench.
	LoadBefore float64 `json:"loadAverageBefore"`
	// LoadAfter is read after the last run; the bench's own client and
	// server add up to about 2 to it.
	LoadAfter float64 `json:"loadAverageAfter"`
	// OtherCores is the CPU processes other than the bench's own used
	// during the rounds, in cores (CPUWatch); -1 when not measured (not
	// Linux, or a server this machine cannot see, e.g. in a container).
	OtherCores float64 `json:"otherCores"`
	// GoMaxProcs is the Go scheduler's P count while the in-process
	// clients ran (SchedulerPs).
	GoMaxProcs int `json:"goMaxProcs,omitempty"`
}

// SchedulerPs is the GOMAXPROCS the bench runs its in-process clients with:
// one P per client connection, at most one per core; a GOMAXPROCS in the
// environment wins. Measured, cause not isolated: on the 2-vCPU guest of
// docs/runs/2026-12-02-gomaxprocs, five back-to-back pairs of the default
// `bench` gave socket/TCP 0.947-1.041 with the default GOMAXPROCS and
// 1.042-1.132 with GOMAXPROCS=1, higher in every pair, while pgbench in
// interleaved runs of the same minutes gave 1.032-1.215. The likely reason
// is that a spare P lets the runtime run other threads on the second CPU
// during each blocking read, so replies wake the client across CPUs.
func SchedulerPs(conns int) int {
	if v := os.Getenv("GOMAXPROCS"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n
		}
	}
	return max(1, min(conns, runtime.NumCPU()))
}

// LoadAverage returns the 1-minute load average from /proc/loadavg, -1
// when it cannot be read.
func LoadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// StartMachine records the cores and the load before a run.
func StartMachine() Machine {
	return Machine{Cores: runtime.NumCPU(), LoadBefore: LoadAverage(), LoadAfter: -1, OtherCores: -1}
}

// Busy says why the machine was too busy to trust a verdict, "" when it
// was not: other work kept more processes runnable than there are cores
// before the run began, or other processes used more than MaxOtherCores
// during the rounds.
func (m Machine) Busy() string {
	var why []string
	if m.LoadBefore > float64(m.Cores) {
		why = append(why, fmt.Sprintf("load average %.2f above %d cores before the run", m.LoadBefore, m.Cores))
	}
	if m.OtherCores > MaxOtherCores {
		why = append(why, fmt.Sprintf("other processes used %.2f cores during the rounds, beyond %.2f", m.OtherCores, MaxOtherCores))
	}
	return strings.Join(why, "; ")
}

// String is "load average 0.42 before, 2.10 after, 2 cores; other
// processes 0.03 cores during the rounds; GOMAXPROCS 1".
func (m Machine) String() string {
	s := fmt.Sprintf("load average %s before, %s after, %d cores", loadText(m.LoadBefore), loadText(m.LoadAfter), m.Cores)
	if m.OtherCores >= 0 {
		s += fmt.Sprintf("; other processes %.2f cores during the rounds", m.OtherCores)
	}
	if m.GoMaxProcs > 0 {
		s += fmt.Sprintf("; GOMAXPROCS %d", m.GoMaxProcs)
	}
	return s
}

func loadText(v float64) string {
	if v < 0 {
		return "unknown"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// RatioSpread is the interquartile range of ratios divided by their
// median: how far round-to-round noise moves a paired ratio (0.05: the
// middle half of the rounds lie within 5% of the median's size); 0 for no
// ratios.
func RatioSpread(ratios []float64) float64 {
	s := slices.Clone(ratios)
	slices.Sort(s)
	med := Quantile(s, 0.5)
	if len(s) == 0 || med == 0 {
		return 0
	}
	return (Quantile(s, 0.75) - Quantile(s, 0.25)) / med
}
