package api

import (
	"errors"
	"fmt"
	"testing"
)

// TestVocabulary checks the map between the API's codes and the library's:
// a code the library has is spelled the same on the wire (ECONFLICT, which
// the API lacks, apart), every library code has an API code, and every
// API code comes back from ErrorOf as itself through Code, with the
// library's code.
func TestVocabulary(t *testing.T) {
	libCodes := []string{EINVALID, EUNKNOWNPLAN, ENOTFOUND, ECONFLICT,
		EUNAUTHORIZED, EFORBIDDEN, ETOOLARGE, EUNSUPPORTED, EUPSTREAM,
		EUNAVAILABLE, ENOSPACE, ERATELIMITED, EINTERNAL}
	for _, code := range libCodes {
		want := code
		if code == ECONFLICT {
			want = CodeInvalidInput
		}
		err := fmt.Errorf("wrapped: %w", &Error{Code: code, Message: "m"})
		if got := Code(err); got != want {
			t.Errorf("Code(%s) = %q, want %q", code, got, want)
		}
	}
	for _, v := range vocabulary {
		if v.refines == nil && v.api != v.lib {
			t.Errorf("API code %q stands for library code %q: spell them the same", v.api, v.lib)
		}
		e := ErrorOf(ErrorDetail{Code: v.api, Message: "m"})
		if e.Code != v.lib || e.Message != "m" || Code(e) != v.api {
			t.Errorf("ErrorOf(%s) = %#v, Code %q", v.api, e, Code(e))
		}
		if v.refines != nil && !errors.Is(e, v.refines) {
			t.Errorf("ErrorOf(%s) does not wrap %v", v.api, v.refines)
		}
	}
	if e := ErrorOf(ErrorDetail{Code: "from_the_future", Message: "m"}); e.Code != "from_the_future" || Code(e) != CodeInternal {
		t.Errorf("an unknown code: %#v, Code %q", e, Code(e))
	}
	if Code(errors.New("plain")) != CodeInternal || Code(nil) != "" {
		t.Error("a plain error is not internal, or nil not empty")
	}
}
