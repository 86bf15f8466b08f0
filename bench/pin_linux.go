//go:build linux

package bench

import (
	"errors"

	"golang.org/x/sys/unix"
)

// cpuPin pins the calling OS thread, and server processes, to CPUs, and
// gives the thread its own affinity back afterwards. The caller must hold
// its goroutine on the thread (runtime.LockOSThread) from newCPUPin to
// restore.
type cpuPin struct {
	saved unix.CPUSet
	cpus  []int // the CPUs the thread may run on, ascending
}

// newCPUPin reads the calling thread's affinity; ok is false when it
// cannot be read or allows fewer than two CPUs (nothing to choose from).
func newCPUPin() (*cpuPin, bool) {
	p := &cpuPin{}
	if err := unix.SchedGetaffinity(0, &p.saved); err != nil {
		return nil, false
	}
	for c := 0; c < 1024 && len(p.cpus) < p.saved.Count(); c++ {
		if p.saved.IsSet(c) {
			p.cpus = append(p.cpus, c)
		}
	}
	return p, len(p.cpus) >= 2
}

// self pins the calling thread to cpu.
func (p *cpuPin) self(cpu int) error { return setAffinity(0, cpu) }

// process pins process pid (all of its threads are one: a PostgreSQL
// backend) to cpu. It fails with EPERM unless the caller owns pid or has
// CAP_SYS_NICE.
func (p *cpuPin) process(pid, cpu int) error {
	if pid <= 0 {
		return errors.New("no process")
	}
	return setAffinity(pid, cpu)
}

// restore gives the thread back the affinity it had.
func (p *cpuPin) restore() { _ = unix.SchedSetaffinity(0, &p.saved) }

func setAffinity(pid, cpu int) error {
	var s unix.CPUSet
	s.Set(cpu)
	return unix.SchedSetaffinity(pid, &s)
}
