//go:build !unix

package main

import "time"

// childCPU is not measured on this platform.
func childCPU() time.Duration { return 0 }

// selfCPU is not measured on this platform.
func selfCPU() time.Duration { return 0 }
