package papermem_test

import (
	"encoding/json"
	"testing"

	"github.com/papermem/papermem"
)

func TestLookupPlan(t *testing.T) {
	for _, name := range []string{"starter", "Starter Tier", " TEAM ", "enterprise tier"} {
		if _, err := papermem.LookupPlan(name); err != nil {
			t.Errorf("LookupPlan(%q): %v", name, err)
		}
	}
	if _, err := papermem.LookupPlan("gold"); papermem.ErrorCode(err) != papermem.EUNKNOWNPLAN {
		t.Errorf("LookupPlan(gold): err = %v", err)
	}
}

func TestPlanJSON(t *testing.T) {
	for _, tc := range []struct{ plan, price string }{{"starter", "0.00"}, {"team", "49.00"}, {"enterprise", "499.00"}} {
		p, err := papermem.LookupPlan(tc.plan)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Slug       string `json:"slug"`
			Price      string `json:"price"`
			PriceCents int64  `json:"price_cents"`
			Currency   string `json:"currency"`
			Free       bool   `json:"free"`
		}
		if err := json.Unmarshal(mustJSON(t, p), &got); err != nil {
			t.Fatal(err)
		}
		if got.Slug != tc.plan || got.Price != tc.price || got.PriceCents != p.PriceCents || got.Currency != "USD" || got.Free != (p.PriceCents == 0) {
			t.Errorf("%s: %+v", tc.plan, got)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
