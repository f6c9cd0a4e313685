//go:build !linux

package main

// peakRSS returns 0: ru_maxrss is in KiB on Linux alone.
func peakRSS() int64 { return 0 }
