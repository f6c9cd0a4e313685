//go:build !unix

package main

import "time"

// childCPU is not measured on this platform.
func childCPU() time.Duration { return 0 }
