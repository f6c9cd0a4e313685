package papermem

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/tokens"
)

// NoteInput is a note a user asked to remember (a "memory" on the wire: kind
// and label Memory).
type NoteInput = api.NoteInput

// Remembered identifies a stored memory.
type Remembered = api.Remembered

// maxMemoryBytes bounds one memory's text.
const maxMemoryBytes = 64 << 10

// Remember stores a memory of user; remembering an existing key replaces
// it in place. Errors: EINVALID.
func (w *Workspace) Remember(ctx context.Context, user string, in NoteInput) (_ *Remembered, err error) {
	defer translate(&err)
	if strings.TrimSpace(user) == "" {
		return nil, Errorf(EINVALID, "A user id is required.")
	}
	text := strings.TrimSpace(in.Text)
	switch {
	case text == "":
		return nil, Errorf(EINVALID, "text is required.")
	case len(text) > maxMemoryBytes || !utf8.ValidString(text):
		return nil, Errorf(EINVALID, "text must be UTF-8 of at most %d bytes.", maxMemoryBytes)
	}
	occurred, err := normalizeTime(in.OccurredAt)
	if err != nil {
		return nil, err
	}
	key := strings.TrimSpace(in.Key)
	if key == "" {
		sum := sha256.Sum256([]byte(text))
		key = "m-" + hex.EncodeToString(sum[:8])
	}
	if in.Tags == nil {
		in.Tags = []string{}
	}
	tags, _ := json.Marshal(in.Tags)
	meta := []byte("{}")
	if in.Metadata != nil {
		if meta, err = json.Marshal(in.Metadata); err != nil {
			return nil, Errorf(EINVALID, "metadata must be a JSON object.")
		}
	}
	var decoded map[string]any // metadata as JSON reads it: numbers are float64
	json.Unmarshal(meta, &decoded)
	session, seq := sessionOrder(decoded)
	n := node{parent: -1, Label: LabelMemory, SectionType: "body", Domain: in.Domain, Text: text,
		Tokens: tokens.Count(text), CharEnd: utf8.RuneCountInString(text)}
	ns := []node{n}
	if err := w.m.embedNodes(ctx, ns); err != nil {
		return nil, err
	}
	now := w.m.nowString()
	row := &store.UserMemory{UserID: user, Key: key, Text: text, Tags: string(tags),
		Domain: in.Domain, OccurredAt: occurred, Metadata: string(meta), Session: session, Seq: seq}
	nodes := stored(ns)
	err = w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		if err := w.ensureWorkspace(ctx, tx); err != nil {
			return err
		}
		return tx.StoreMemory(ctx, w.id, row, nodes, now)
	})
	if err != nil {
		return nil, err
	}
	w.countMemory()
	return &Remembered{NodeID: nodes[0].Num, Key: key}, nil
}

// Forget deletes the memory of user with key from every index. Errors:
// EINVALID, ENOTFOUND.
func (w *Workspace) Forget(ctx context.Context, user, key string) (err error) {
	defer translate(&err)
	if strings.TrimSpace(user) == "" {
		return Errorf(EINVALID, "A user id is required.")
	}
	return w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		// The workspace's lock first, as Remember takes it: a memory
		// rewritten on another server cannot slip nodes in between.
		if err := w.ensureWorkspace(ctx, tx); err != nil {
			return err
		}
		return dbError(tx.DeleteMemory(ctx, w.id, user, key), "No memory with key "+key+".")
	})
}

// UserRecallRequest asks for a user's memories that answer a question.
type UserRecallRequest = api.UserRecallInput

// RecallUser returns the memories of user that best answer the question,
// within the budget. Only that user's memories are searched. The ranking is
// made for conversation memories: names and rare words of the question
// weigh more than common ones (counted among the user's own memories), a
// question about time favours memories that say when, and a hit brings the
// memories just before and after it in its session (metadata "session")
// when the budget allows (see internal/recall/user.go). Errors: EINVALID.
func (w *Workspace) RecallUser(ctx context.Context, user string, req UserRecallRequest) (_ *RecallResult, err error) {
	defer translate(&err)
	if strings.TrimSpace(user) == "" {
		return nil, Errorf(EINVALID, "A user id is required.")
	}
	r := RecallRequest{Question: req.Question, Keywords: req.Keywords, BudgetTokens: req.BudgetTokens,
		Fill: req.Fill, MinTokens: req.MinTokens, Label: LabelAny, Retrieval: req.Retrieval}
	if err := validateRecall(&r); err != nil {
		return nil, err
	}
	res, err := w.recallMemories(ctx, user, r)
	if err != nil {
		return nil, err
	}
	return w.countRecall(res), nil
}

// sessionOrder reads the session and sequence of a memory from its
// metadata: "session" as a string or number, "seq" as a number.
func sessionOrder(meta map[string]any) (session string, seq float64) {
	switch v := meta["session"].(type) {
	case string:
		session = v
	case float64:
		session = strconv.FormatFloat(v, 'f', -1, 64)
	}
	seq, _ = meta["seq"].(float64)
	return session, seq
}

// ParseTime parses an ISO-8601 date or date-time (api.ParseTime).
// Errors: EINVALID.
func ParseTime(s string) (time.Time, error) { return api.ParseTime(s) }

// normalizeTime stores an optional time in papermem's format.
func normalizeTime(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", nil
	}
	t, err := ParseTime(s)
	if err != nil {
		return "", err
	}
	return timestamp(t), nil
}
