package bench

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// CPUWatch measures how much CPU processes other than the bench's own used
// while the rounds ran: the machine's busy time (/proc/stat: user, nice,
// system and steal; interrupt time is left out, since the bench's own
// loopback traffic is processed there) minus the CPU of the bench's
// process family (this process, every process descending from it or from
// the other roots, e.g. a local server's postmaster, and the children they
// reaped: /proc/PID/stat utime, stime, cutime, cstime). A load average
// lags by a minute; this sees a busy loop that started a second before
// the run. Linux only.
type CPUWatch struct {
	roots []int
	start cpuSnapshot
	t0    time.Time
	ok    bool
}

type cpuSnapshot struct{ machine, family int64 } // clock ticks

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every Linux
// architecture Go supports (sysconf(_SC_CLK_TCK), fixed by the kernel ABI).
const clockTicks = 100

// WatchCPU starts watching; roots are processes (besides this one) whose
// CPU and whose descendants' CPU count as the bench's own.
func WatchCPU(roots ...int) *CPUWatch {
	w := &CPUWatch{roots: append([]int{os.Getpid()}, roots...), t0: time.Now()}
	w.start, w.ok = w.snapshot()
	return w
}

// OtherCores returns the average number of cores other processes kept
// busy since WatchCPU (1.0: one core all the time), or -1 when /proc
// cannot tell.
func (w *CPUWatch) OtherCores() float64 {
	end, ok := w.snapshot()
	secs := time.Since(w.t0).Seconds()
	if !w.ok || !ok || secs <= 0 {
		return -1
	}
	other := float64((end.machine-w.start.machine)-(end.family-w.start.family)) / clockTicks
	return max(other/secs, 0)
}

func (w *CPUWatch) snapshot() (cpuSnapshot, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuSnapshot{}, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuSnapshot{}, false
	}
	var s cpuSnapshot
	for _, i := range []int{1, 2, 3, 8} { // user nice system steal
		v, _ := strconv.ParseInt(f[i], 10, 64)
		s.machine += v
	}
	procs := readProcs()
	if procs == nil {
		return cpuSnapshot{}, false
	}
	for pid, p := range procs {
		if inFamily(pid, procs, w.roots) {
			s.family += p.ticks
		}
	}
	return s, true
}

type procStat struct {
	ppid  int
	ticks int64 // utime + stime + cutime + cstime
}

// readProcs reads every process's parent and CPU ticks from /proc.
func readProcs() map[int]procStat {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make(map[int]procStat, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProcStat(pid); ok {
			out[pid] = p
		}
	}
	return out
}

// readProcStat parses /proc/PID/stat: fields after the ")" closing comm
// are state, ppid, ..., utime (14), stime, cutime, cstime (17), counting
// from pid as 1 (proc(5)).
func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 15 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	var ticks int64
	for _, k := range []int{11, 12, 13, 14} { // fields 14-17
		v, _ := strconv.ParseInt(f[k], 10, 64)
		ticks += v
	}
	return procStat{ppid: ppid, ticks: ticks}, true
}

func inFamily(pid int, procs map[int]procStat, roots []int) bool {
	for hops := 0; pid > 1 && hops < 64; hops++ {
		for _, r := range roots {
			if pid == r {
				return true
			}
		}
		p, ok := procs[pid]
		if !ok {
			return false
		}
		pid = p.ppid
	}
	return false
}

// localPostmaster returns the process id of the server behind cfg when it
// runs on this machine in this process namespace (its backend and the
// backend's parent are processes named postgres here), 0 otherwise.
func localPostmaster(ctx context.Context, cfg *pgx.ConnConfig) int {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return 0
	}
	defer conn.Close(context.Background())
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return 0
	}
	p, ok := readProcStat(backend)
	if !ok || !isPostgres(backend) || !isPostgres(p.ppid) {
		return 0
	}
	return p.ppid
}

func isPostgres(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	c := strings.TrimSpace(string(b))
	return err == nil && (c == "postgres" || c == "postmaster")
}
