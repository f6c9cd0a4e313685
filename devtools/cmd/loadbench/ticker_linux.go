package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// ticker is a periodic timerfd, read through Go's network poller: it
// wakes the pacer within tens of microseconds of each tick, where Go's own
// timers wake an idle process only to the millisecond (the poller's wait
// takes a timeout in milliseconds).
type ticker struct {
	f   *os.File
	buf [8]byte
}

// itimerspec is struct itimerspec of timerfd_settime(2).
type itimerspec struct {
	interval, value syscall.Timespec
}

// newTicker starts a ticker whose tick k (from 1) is at start + k·period.
func newTicker(period time.Duration) (t *ticker, start time.Time, err error) {
	const clockMonotonic = 1
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return nil, time.Time{}, fmt.Errorf("timerfd_create: %w", errno)
	}
	f := os.NewFile(fd, "timerfd") // non-blocking, so read through the poller
	spec := itimerspec{interval: syscall.NsecToTimespec(int64(period)), value: syscall.NsecToTimespec(int64(period))}
	start = time.Now()
	if _, _, errno := syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0); errno != 0 {
		f.Close()
		return nil, time.Time{}, fmt.Errorf("timerfd_settime: %w", errno)
	}
	return &ticker{f: f}, start, nil
}

// wait blocks until the next tick and returns the number of ticks since
// the last wait.
func (t *ticker) wait() (int, error) {
	if _, err := t.f.Read(t.buf[:]); err != nil {
		return 0, err
	}
	return int(binary.NativeEndian.Uint64(t.buf[:])), nil
}

// stop releases the ticker.
func (t *ticker) stop() error { return t.f.Close() }
