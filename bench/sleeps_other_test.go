//go:build !linux

package bench

// threadSleeps is unknown (-1) where there is no per-thread rusage.
func threadSleeps() int64 { return -1 }

func processSleeps() int64 { return -1 }
