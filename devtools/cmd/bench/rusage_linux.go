//go:build linux

package main

import "syscall"

// peakRSS returns the most resident memory this process has had, in
// bytes (Linux reports ru_maxrss in KiB).
func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Maxrss * 1024
}
