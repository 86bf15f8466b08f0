package bench

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const loopScript = "end=$(( $(date +%s) + 2 )); while [ $(date +%s) -lt $end ]; do :; done"

// A busy loop the bench runs (a child) counts as the bench's own CPU; the
// same loop in another process family (sh forks it into the background
// and exits, so it is nobody's child here) counts as other work. Both are
// compared with the loop's own CPU time, so other load on the machine
// cannot make the test pass or fail.
func TestCPUWatchSeesOtherWorkOnly(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); runtime.GOOS != "linux" || err != nil {
		t.Skip("needs Linux /proc")
	}
	w := WatchCPU()
	cmd := exec.Command("sh", "-c", loopScript)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	end, _ := w.snapshot()
	loop := int64((cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()) * clockTicks / time.Second)
	if fam := end.family - w.start.family; fam < loop-2 {
		t.Errorf("child loop used %d ticks, the family only %d", loop, fam)
	}

	w = WatchCPU()
	out, err := exec.Command("sh", "-c", "sh -c '"+loopScript+"' >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	defer syscall.Kill(pid, syscall.SIGKILL)
	time.Sleep(1500 * time.Millisecond)
	p, ok := readProcStat(pid)
	end, _ = w.snapshot()
	if !ok || p.ticks < 20 {
		t.Skipf("the orphan loop got too little CPU to judge (%d ticks)", p.ticks)
	}
	fam, other := end.family-w.start.family, (end.machine-w.start.machine)-(end.family-w.start.family)
	t.Logf("orphan loop %d ticks: family %d, other %d", p.ticks, fam, other)
	if fam > p.ticks/2 || other < p.ticks-5 {
		t.Errorf("orphan loop used %d ticks: counted %d as the family's, %d as other work", p.ticks, fam, other)
	}
}

// Busy names each reason: the load average and other processes' CPU.
func TestBusyNamesOtherProcesses(t *testing.T) {
	m := Machine{Cores: 2, LoadBefore: 0.2, LoadAfter: 1, OtherCores: 0.97}
	if got := m.Busy(); !strings.Contains(got, "other processes used 0.97 cores during the rounds") {
		t.Errorf("Busy() = %q", got)
	}
	m.OtherCores = -1
	if got := m.Busy(); got != "" {
		t.Errorf("unknown other CPU made the machine busy: %q", got)
	}
}

func TestSchedulerPs(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	for _, c := range []struct{ conns, want int }{{1, 1}, {0, 1}, {runtime.NumCPU(), runtime.NumCPU()}, {runtime.NumCPU() + 7, runtime.NumCPU()}} {
		if got := SchedulerPs(c.conns); got != c.want {
			t.Errorf("SchedulerPs(%d) = %d, want %d", c.conns, got, c.want)
		}
	}
	t.Setenv("GOMAXPROCS", "3")
	if got := SchedulerPs(1); got != 3 {
		t.Errorf("with GOMAXPROCS=3 set: %d", got)
	}
	t.Setenv("GOMAXPROCS", "nonsense")
	if got := SchedulerPs(1); got != 1 {
		t.Errorf("with GOMAXPROCS=nonsense: %d", got)
	}
}
