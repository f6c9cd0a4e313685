package papermem_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/papermem/papermem"
)

// TestErrorIs checks that a sentinel matches any *Error of its code in an
// error's chain, and nothing else.
func TestErrorIs(t *testing.T) {
	sentinels := map[string]*papermem.Error{
		papermem.EINVALID: papermem.ErrInvalid, papermem.EUNKNOWNPLAN: papermem.ErrUnknownPlan,
		papermem.ENOTFOUND: papermem.ErrNotFound, papermem.ECONFLICT: papermem.ErrConflict,
		papermem.EUNAUTHORIZED: papermem.ErrUnauthorized, papermem.EFORBIDDEN: papermem.ErrForbidden,
		papermem.ETOOLARGE: papermem.ErrTooLarge, papermem.EUNSUPPORTED: papermem.ErrUnsupported,
		papermem.EUPSTREAM: papermem.ErrUpstream, papermem.EUNAVAILABLE: papermem.ErrUnavailable,
		papermem.ENOSPACE: papermem.ErrNoSpace, papermem.ERATELIMITED: papermem.ErrRateLimited,
		papermem.EINTERNAL: papermem.ErrInternal,
	}
	for code, sentinel := range sentinels {
		t.Run(code, func(t *testing.T) {
			if papermem.ErrorCode(sentinel) != code || papermem.ErrorMessage(sentinel) == "" {
				t.Errorf("sentinel: code %q, message %q", papermem.ErrorCode(sentinel), papermem.ErrorMessage(sentinel))
			}
			err := fmt.Errorf("context: %w", papermem.Errorf(code, "Something of code %s.", code))
			for other, s := range sentinels {
				if got := errors.Is(err, s); got != (other == code) {
					t.Errorf("errors.Is(%s error, %s sentinel) = %v", code, other, got)
				}
			}
		})
	}
	t.Run("OtherTargets", func(t *testing.T) {
		base := errors.New("base")
		custom := &papermem.Error{Code: papermem.EINVALID, Message: "custom"}
		err := &papermem.Error{Code: papermem.EINVALID, Message: "m", Err: base}
		switch {
		case errors.Is(err, custom):
			t.Error("an *Error that is no sentinel matched another of its code")
		case !errors.Is(fmt.Errorf("w: %w", custom), custom):
			t.Error("an *Error does not match itself")
		case !errors.Is(err, base):
			t.Error("the wrapped error is not matched")
		case errors.Is(err, (*papermem.Error)(nil)), errors.Is(&papermem.Error{Code: "unknown"}, (*papermem.Error)(nil)):
			t.Error("a nil *Error matched")
		case errors.Is(errors.New("plain"), papermem.ErrInternal):
			t.Error("an error without an *Error matched a sentinel") // ErrorCode reads it as EINTERNAL
		}
	})
}
