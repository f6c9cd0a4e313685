package locomo

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"time"

	"github.com/papermem/papermem"
)

// Turn is one dialogue turn.
type Turn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

// Session is one dated session of a conversation.
type Session struct {
	N     int       // its number in the conversation
	Date  time.Time // when it took place
	Turns []Turn
}

// Sessions returns the dated sessions of a conversation in order.
func Sessions(conv map[string]json.RawMessage) ([]Session, error) {
	var out []Session
	for k, raw := range conv {
		var n int
		if _, err := fmt.Sscanf(k, "session_%d", &n); err != nil || k != fmt.Sprintf("session_%d", n) {
			continue
		}
		s := Session{N: n}
		if err := json.Unmarshal(raw, &s.Turns); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		var when string
		if err := json.Unmarshal(conv[k+"_date_time"], &when); err != nil {
			return nil, fmt.Errorf("%s_date_time: %w", k, err)
		}
		t, err := time.Parse("3:04 pm on 2 January, 2006", when)
		if err != nil {
			return nil, fmt.Errorf("%s_date_time: %w", k, err)
		}
		s.Date = t
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].N < out[j].N })
	return out, nil
}

// StoreAs says how Store stores turns: keyed by their dialogue id after
// Prefix, in their session's number plus SessionOffset, and with the
// speaker's name before the text when Speakers is set.
type StoreAs struct {
	Prefix        string
	SessionOffset int
	Speakers      bool
}

// Store stores every turn of a conversation as a memory of user, as as
// says, and returns the text stored under each dialogue id.
func Store(ctx context.Context, w *papermem.Workspace, user string, conv map[string]json.RawMessage, as StoreAs) (map[string]string, error) {
	ss, err := Sessions(conv)
	if err != nil {
		return nil, err
	}
	ids := map[string]string{}
	for _, s := range ss {
		for i, t := range s.Turns {
			text := t.Text
			if as.Speakers {
				text = t.Speaker + ": " + text
			}
			if t.BlipCaption != "" {
				text += " [shared " + t.BlipCaption + "]"
			}
			_, err := w.Remember(ctx, user, papermem.NoteInput{
				Text:       text,
				Key:        as.Prefix + t.DiaID,
				OccurredAt: s.Date.Format(time.RFC3339),
				Metadata:   map[string]any{"dia_id": t.DiaID, "session": s.N + as.SessionOffset, "seq": i},
			})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", t.DiaID, err)
			}
			ids[t.DiaID] = text
		}
	}
	return ids, nil
}

// evidenceRE matches a dialogue id, tolerating the dataset's stray colon
// ("D:11:26").
var evidenceRE = regexp.MustCompile(`D:?(\d+):(\d+)`)

// EvidenceIDs normalises a question's evidence list; an entry may hold
// several ids separated by semicolons.
func EvidenceIDs(ev []string) []string {
	var out []string
	for _, e := range ev {
		for _, m := range evidenceRE.FindAllStringSubmatch(e, -1) {
			id := "D" + m[1] + ":" + m[2]
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// Covers reports whether every evidence turn (by dialogue id, the key
// Store gives it) is among the recalled spans.
func Covers(res *papermem.RecallResult, evidence []string) bool {
	got := map[string]bool{}
	for _, s := range res.Spans {
		got[s.Provenance.Key] = true
	}
	for _, e := range evidence {
		if !got[e] {
			return false
		}
	}
	return true
}
