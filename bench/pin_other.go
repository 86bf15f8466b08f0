//go:build !linux

package bench

import "errors"

// cpuPin is not available off Linux: the floor is measured unpinned.
type cpuPin struct{ cpus []int }

func newCPUPin() (*cpuPin, bool)         { return nil, false }
func (p *cpuPin) self(int) error         { return errors.New("no CPU affinity here") }
func (p *cpuPin) process(int, int) error { return errors.New("no CPU affinity here") }
func (p *cpuPin) restore()               {}
