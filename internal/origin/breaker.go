package origin

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Circuit breaker defaults, used when the corresponding Options field is
// zero.
const (
	// DefaultBreakerFailures is how many failed attempts in a row (no
	// connection, no such host, a timeout, a 5xx) take a service down.
	DefaultBreakerFailures = 5
	// DefaultBreakerCooldown is how long a service that went down is
	// skipped before one request probes it; the cool-down doubles each
	// time a probe fails, up to DefaultBreakerMaxCooldown.
	DefaultBreakerCooldown    = 30 * time.Second
	DefaultBreakerMaxCooldown = 10 * time.Minute
)

// ErrDown is in the chain of the error of a request that was not sent
// because its service is down (its circuit is open): it failed
// Options.BreakerFailures attempts in a row and its cool-down has not
// passed. The error matches ErrUpstream too.
var ErrDown = errors.New("origin: service is down")

// DownError is the error of a request that was not sent because its
// service is down: it matches ErrDown and ErrUpstream, and says when the
// service's next probe may go (Retry), before which the request would
// fail the same way.
type DownError struct {
	Service, Key string
	State        ServiceState
}

func (e *DownError) Error() string {
	return fmt.Sprintf("%v: %v: %s %s: down since %s (%d failures in a row), next try at %s", ErrUpstream, ErrDown,
		e.Service, e.Key, e.State.Since.UTC().Format(time.RFC3339), e.State.Failures, e.State.Retry.UTC().Format(time.RFC3339))
}

// Is reports whether target is ErrDown or ErrUpstream.
func (e *DownError) Is(target error) bool { return target == ErrDown || target == ErrUpstream }

// ServiceState is a service's circuit as State reports it.
type ServiceState struct {
	Name string
	// Down is true while the service is skipped or probed: it failed
	// BreakerFailures attempts in a row and has not answered since.
	Down bool
	// Since is when it went down; Retry when the next probe may go (both
	// zero while up).
	Since, Retry time.Time
	// Failures counts the failed attempts in a row; LastError is the
	// last failure's text (without the contact address).
	Failures  int
	LastError string
}

// breaker is one service's circuit: closed while the service answers,
// open (every request fails with ErrDown) for a cool-down after a run of
// failures, then half-open: one request at a time probes it, and its
// answer closes the circuit or opens it for twice the cool-down.
type breaker struct {
	name         string
	threshold    int
	base, most   time.Duration
	now          func() time.Time
	log          *slog.Logger
	mu           sync.Mutex
	failures     int
	lastErr      string
	down         bool
	since, retry time.Time
	cooldown     time.Duration
	probing      bool
}

func newBreaker(name string, threshold int, base, most time.Duration, log *slog.Logger) *breaker {
	return &breaker{name: name, threshold: threshold, base: base, most: max(most, base), now: time.Now, log: log}
}

// allow reports whether a request may go now; probe is true when it is the
// one request probing a service that is down, whose end must be reported
// (done) for another to go.
func (b *breaker) allow() (ok, probe bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.down {
		return true, false
	}
	if b.probing || b.now().Before(b.retry) {
		return false, false
	}
	b.probing = true
	return true, true
}

// done records the outcome of an attempt allowed by allow: failed is true
// for a failure of the service (no connection, a timeout, a 5xx), false
// for any answer; cancelled is true for an attempt that ended without
// either (the caller gave up), which changes nothing but a probe's turn.
// err, the attempt's error, is kept as the last failure's text.
func (b *breaker) done(probe, failed, cancelled bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		b.probing = false
	}
	switch {
	case cancelled:
		return
	case !failed:
		if b.down {
			b.log.Info("origin is back", "service", b.name, "down_for", b.now().Sub(b.since).Round(time.Second).String())
		}
		b.failures, b.lastErr, b.down, b.since, b.retry, b.cooldown = 0, "", false, time.Time{}, time.Time{}, 0
		return
	}
	b.failures++
	if err != nil {
		b.lastErr = err.Error()
	}
	switch {
	case b.down && probe:
		b.cooldown = min(2*b.cooldown, b.most)
		b.retry = b.now().Add(b.cooldown)
	case !b.down && b.failures >= b.threshold:
		b.down, b.since, b.cooldown = true, b.now(), b.base
		b.retry = b.since.Add(b.cooldown)
		b.log.Warn("origin is down: skipping it while it stays down (PAPERMEM_ORIGINS=off turns the origins off)",
			"service", b.name, "failures", b.failures, "retry_in", b.cooldown.String(), "err", b.lastErr)
	}
}

// state reports the circuit.
func (b *breaker) state() ServiceState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return ServiceState{Name: b.name, Down: b.down, Since: b.since, Retry: b.retry, Failures: b.failures, LastError: b.lastErr}
}

// ready reports whether a request may be asked of the service now: it is
// up, or due for a probe. When not, retry is when the probe is due.
func (b *breaker) ready() (ok bool, retry time.Time) {
	s := b.state()
	if !s.Down || !b.now().Before(s.Retry) {
		return true, time.Time{}
	}
	return false, s.Retry
}
