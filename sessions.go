package papermem

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/papermem/papermem/internal/store"
)

// sessionIDPattern is the rule for session ids.
var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$`)

// ValidSessionID reports whether id is a well-formed session id: 1 to 128
// characters of letters, digits and . _ : @ + -, starting with a letter or
// digit.
func ValidSessionID(id string) bool { return sessionIDPattern.MatchString(id) }

// newSessionID returns a fresh random session id.
func newSessionID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "s_" + hex.EncodeToString(b)
}

// SessionLink links a session to the papers and claims it used.
type SessionLink struct {
	SessionID string   `json:"session_id"` // required, see ValidSessionID
	UserID    string   `json:"-"`          // owner of the session; "" leaves it unchanged
	Papers    []string `json:"papers"`     // DOIs, normalised; unknown ones become paper stubs
	Claims    []int64  `json:"claims"`     // node ids from recall; each must exist in the workspace
}

// SessionLinks is the result of LinkSession.
type SessionLinks struct {
	SessionID    string `json:"session_id"`
	LinkedPapers int    `json:"linked_papers"` // distinct papers of the request, now linked
	LinkedClaims int    `json:"linked_claims"` // distinct claims of the request, now linked
}

// LinkSession records that a session used papers and claims, creating the
// session on first use. Linking is idempotent: links that exist are kept,
// and re-linking reports the same counts. A DOI that names no paper of the
// workspace is recorded as a paper stub: a paper without title or text, so
// PaperExists reports true and Paper reports cached false until the paper
// is stored. A claim is any node id recall returned (claims, passages,
// paper heads, analyses, documents) except per-user memories; an id that
// names no such node of this workspace fails the call with EINVALID and
// nothing is written. Links to a paper disappear when it is deleted, and
// links to a claim when its paper is re-stored (its nodes get new ids).
// Errors: EINVALID.
func (w *Workspace) LinkSession(ctx context.Context, l SessionLink) (*SessionLinks, error) {
	if !ValidSessionID(l.SessionID) {
		return nil, Errorf(EINVALID, "session_id is required: 1 to 128 letters, digits or . _ : @ + -, starting with a letter or digit.")
	}
	if err := checkUserID(l.UserID); err != nil {
		return nil, err
	}
	dois, err := normalizeDOIs(l.Papers, "papers", MaxSessionLinks)
	if err != nil {
		return nil, err
	}
	claims, err := distinctClaims(l.Claims, "claims")
	if err != nil {
		return nil, err
	}
	err = w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		id, err := w.upsertSession(ctx, tx, l.SessionID, l.UserID)
		if err != nil {
			return err
		}
		known, err := w.knownClaims(ctx, tx, claims)
		if err != nil {
			return err
		}
		if len(known) < len(claims) {
			return unknownClaims(claims, known)
		}
		if err := w.linkPapers(ctx, tx, id, dois); err != nil {
			return err
		}
		return w.linkClaims(ctx, tx, id, claimRows(claims, known))
	})
	if err != nil {
		return nil, err
	}
	return &SessionLinks{SessionID: l.SessionID, LinkedPapers: len(dois), LinkedClaims: len(claims)}, nil
}

// checkUserID bounds an optional user id.
func checkUserID(user string) error {
	if len(user) > 256 || !utf8.ValidString(user) {
		return Errorf(EINVALID, "user_id must be UTF-8 of at most 256 bytes.")
	}
	return nil
}

// normalizeDOIs normalises and de-duplicates DOIs, keeping their order;
// more than limit of them are refused.
func normalizeDOIs(in []string, field string, limit int) ([]string, error) {
	if len(in) > limit {
		return nil, Errorf(EINVALID, "%s holds %d DOIs; at most %d are accepted.", field, len(in), limit)
	}
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, s := range in {
		d := NormalizeDOI(s)
		if d == "" {
			return nil, Errorf(EINVALID, "%s: %q is not a DOI.", field, s)
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out, nil
}

// distinctClaims de-duplicates claim ids, keeping their order.
func distinctClaims(in []int64, field string) ([]int64, error) {
	if len(in) > MaxSessionLinks {
		return nil, Errorf(EINVALID, "%s holds %d ids; at most %d are accepted.", field, len(in), MaxSessionLinks)
	}
	out := make([]int64, 0, len(in))
	seen := make(map[int64]bool, len(in))
	for _, id := range in {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// unknownClaims is the EINVALID error naming the ids of claims missing
// from known.
func unknownClaims(claims []int64, known map[int64]int64) error {
	var missing []string
	for _, id := range claims {
		if _, ok := known[id]; !ok {
			missing = append(missing, strconv.FormatInt(id, 10))
		}
	}
	if len(missing) > 10 {
		missing = append(missing[:10], "…")
	}
	return Errorf(EINVALID, "claims: no node %s in this workspace.", strings.Join(missing, ", "))
}

// upsertSession registers a session on first use and returns its row id.
// The first non-empty user id becomes the session's owner.
func (w *Workspace) upsertSession(ctx context.Context, tx *store.Tx, sessionID, user string) (int64, error) {
	if err := w.ensureWorkspace(ctx, tx); err != nil {
		return 0, err
	}
	id, err := store.UpsertSession(ctx, tx, w.id, sessionID, user, w.m.nowString())
	if err != nil {
		return 0, fmt.Errorf("upsert session %q: %w", sessionID, err)
	}
	return id, nil
}

// knownClaims returns which of ids (node ids as the API shows them, numbers
// in the workspace) are nodes of this workspace that a session may link,
// any but per-user memories, with their row ids.
func (w *Workspace) knownClaims(ctx context.Context, q store.Querier, ids []int64) (map[int64]int64, error) {
	return store.NodesNotOfKind(ctx, q, w.m.database.Engine, w.id, KindMemory, ids)
}

// claimRows returns the row ids of the claims that known holds, in order.
func claimRows(claims []int64, known map[int64]int64) []int64 {
	rows := make([]int64, 0, len(claims))
	for _, id := range claims {
		if row, ok := known[id]; ok {
			rows = append(rows, row)
		}
	}
	return rows
}

// linkPapers links session sid to the papers, creating stubs for DOIs the
// workspace does not hold.
func (w *Workspace) linkPapers(ctx context.Context, tx *store.Tx, sid int64, dois []string) error {
	if len(dois) == 0 {
		return nil
	}
	return store.LinkSessionPapers(ctx, tx, w.id, sid, dois, w.m.nowString())
}

// linkClaims links session sid to claim nodes known to exist, by row id.
func (w *Workspace) linkClaims(ctx context.Context, tx *store.Tx, sid int64, claims []int64) error {
	if len(claims) == 0 {
		return nil
	}
	return store.LinkSessionClaims(ctx, tx, w.id, sid, claims, w.m.nowString())
}

// RecentSessions lists the ids of the workspace's sessions, most recently
// linked first, at most limit of them (0 means DefaultPaperLimit; at most
// MaxPaperLimit). Errors: EINVALID.
func (w *Workspace) RecentSessions(ctx context.Context, limit int) ([]string, error) {
	limit, err := listLimit(limit)
	if err != nil {
		return nil, err
	}
	ids, err := store.RecentSessions(ctx, w.m.db, w.id, limit)
	if err != nil {
		return nil, fmt.Errorf("recent sessions: %w", err)
	}
	return ids, nil
}
