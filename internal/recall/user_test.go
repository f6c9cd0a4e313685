package recall

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAnalyseQuestion(t *testing.T) {
	q := analyseQuestion("What did John recently get promoted to at Acme in 2021?", []string{"career moves"})
	got := map[string]float64{}
	for _, term := range q.terms {
		got[term.Term] = term.Weight
	}
	// Terms are FTS5's stems; names weigh entityWeight, numbers
	// numberWeight, keywords keywordWeight; stop words are left out.
	want := map[string]float64{"john": entityWeight, "recent": 1, "get": 1, "promot": 1, "acm": entityWeight,
		"2021": numberWeight, "career": keywordWeight, "move": keywordWeight}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
	if !q.temporal || !cmp.Equal(q.periods, []string{"2021"}) {
		t.Errorf("temporal %v, periods %q", q.temporal, q.periods)
	}
}

func TestTimeCues(t *testing.T) {
	for q, want := range map[string]bool{
		"When did Ada go to Lisbon?":          true,
		"How long has Bob been painting?":     true,
		"What did Ada do in 2022?":            true,
		"What did Ada do last May?":           true,
		"What may Ada want to paint?":         false,
		"How tall is the long tower?":         false,
		"What is the name of Bob's dog?":      false,
		"Which weekend did they go camping?":  true,
		"What did Ada think on Saturday?":     true,
		"Is Ada's favourite colour turquoise": false,
	} {
		if got := asksTime(rawWords(q)); got != want {
			t.Errorf("asksTime(%q) = %v", q, got)
		}
	}
	for text, want := range map[string]bool{
		"I went to a support group yesterday": true,
		"we moved here three years ago":       true,
		"it took two weeks":                   true,
		"see you next Friday":                 true,
		"back in 2019 we met":                 true,
		"I may go":                            false,
		"a week is long":                      false,
		"that was the best time":              false,
	} {
		if got := mentionsTime(strings.Fields(strings.ToLower(text))); got != want {
			t.Errorf("mentionsTime(%q) = %v", text, got)
		}
	}
	for q, want := range map[string][]string{
		"What did Ada do in May 2023?":           {"2023-05"},
		"What happened in 2022 and 2023?":        {"2022", "2023"},
		"Where was Bob in July?":                 {"-07"},
		"What may Bob do?":                       nil,
		"What did Ada bake in June or July 2021": {"2021-06", "2021-07"},
	} {
		if got := namedPeriods(rawWords(q)); !cmp.Equal(got, want) {
			t.Errorf("namedPeriods(%q) = %q, want %q", q, got, want)
		}
	}
	if !inPeriod("2023-05-07T10:00:00.000Z", []string{"-05"}) || inPeriod("2023-06-07T10:00:00.000Z", []string{"2023-05", "2022"}) {
		t.Error("inPeriod")
	}
}

func TestMemoryRows(t *testing.T) {
	var r memoryRows
	row := func(id int64) memCand {
		var c memCand
		c.NodeID, c.Text = id, "memory"
		return c
	}
	r.put("home", "ada", []memCand{row(1), row(2)})
	found, missing := r.get("home", "ada", []int64{1, 2, 3})
	if len(found) != 2 || !cmp.Equal(missing, []int64{3}) {
		t.Fatalf("found %d, missing %v", len(found), missing)
	}
	found[0].Score = 7 // a copy: the cached row is untouched
	if again, _ := r.get("home", "ada", []int64{1}); again[0].Score != 0 {
		t.Error("get returned the cached row itself")
	}
	// Another user or workspace never gets the row.
	for _, who := range [][2]string{{"home", "bob"}, {"other", "ada"}} {
		if found, missing := r.get(who[0], who[1], []int64{1}); len(found) != 0 || len(missing) != 1 {
			t.Errorf("%v: found %d rows of ada in home", who, len(found))
		}
	}
	// The cache never holds more than maxMemoryRows rows.
	batch := make([]memCand, 1000)
	for i := range maxMemoryRows/len(batch) + 2 {
		for j := range batch {
			batch[j] = row(int64(10 + i*len(batch) + j))
		}
		r.put("home", "ada", batch)
		if len(r.rows) > maxMemoryRows {
			t.Fatalf("%d rows cached", len(r.rows))
		}
	}
}

// TestScoreMemoriesQuantity checks that a question asking how many ranks
// a memory that holds a number before one that holds none and matches
// the question's words as well.
func TestScoreMemoriesQuantity(t *testing.T) {
	for _, question := range []string{"How many cats does Ada have?", "Which cats does Ada have?"} {
		cs := []*memCand{
			{Span: Span{NodeID: 1, Text: "Ada talks about her cats all the time."}, lex: 1, cos: 1},
			{Span: Span{NodeID: 2, Text: "Ada has two cats, Tom and Mia."}, lex: 1, cos: 1},
		}
		scoreMemories(cs, analyseQuestion(question, nil))
		quantity := strings.HasPrefix(question, "How many")
		if got := cs[1].Score > cs[0].Score; got != quantity {
			t.Errorf("%q: the memory with a number scores %.3f, the other %.3f", question, cs[1].Score, cs[0].Score)
		}
	}
}
