package bench

import "golang.org/x/sys/unix"

// processSleeps is this process's voluntary context switches so far, all
// threads (the Go runtime's own included), -1 when unknown.
func processSleeps() int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return ru.Nvcsw
}

// threadSleeps is the calling thread's voluntary context switches so far
// (the times it slept waiting), -1 when unknown.
func threadSleeps() int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return -1
	}
	return ru.Nvcsw
}
