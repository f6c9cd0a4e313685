package store

import (
	"strconv"
	"strings"
	"testing"
)

func TestRebind(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"None", `SELECT 1`, `SELECT 1`},
		{"Bare", `SELECT a FROM t WHERE b = ? AND c IN (?, ?)`, `SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)`},
		{"Numbered", `SELECT ?2, ?1, ?2`, `SELECT $2, $1, $2`},
		{"BareAfterNumbered", `SELECT ?3, ?, ?1, ?`, `SELECT $3, $4, $1, $5`},
		{"String", `SELECT '?', 'it''s ?', ?`, `SELECT '?', 'it''s ?', $1`},
		{"Identifier", `SELECT "a?""b" FROM t WHERE x = ?`, `SELECT "a?""b" FROM t WHERE x = $1`},
		{"EscapeString", `SELECT E'\'?', e'\\', ?`, `SELECT E'\'?', e'\\', $1`},
		{"NotEscapeString", `SELECT name'?', ?`, `SELECT name'?', $1`},
		{"LineComment", "SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2"},
		{"LineCommentAtEnd", "SELECT ? -- why?", "SELECT $1 -- why?"},
		{"BlockComment", `SELECT ? /* a /* ? */ ? */, ?`, `SELECT $1 /* a /* ? */ ? */, $2`},
		{"Dollar", `SELECT $$?$$, $q$ $ ? $q$, ?`, `SELECT $$?$$, $q$ $ ? $q$, $1`},
		{"Positional", `SELECT $1, ?`, `SELECT $1, $1`},
		{"IdentifierDollar", `SELECT a$b$ FROM t WHERE x = ?`, `SELECT a$b$ FROM t WHERE x = $1`},
		{"Unterminated", `SELECT ?, 'a?`, `SELECT $1, 'a?`},
		{"Division", `SELECT 4/2, ? - 1`, `SELECT 4/2, $1 - 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rebind(tc.in); got != tc.want {
				t.Errorf("rebind(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzRebind checks rebind two ways. Any input: each ? it rewrites becomes
// exactly one $, and an input without ? is left as it is. A query built
// from the input: the fuzzed bytes, cut at '|', are pieces whose first
// byte picks a kind (plain SQL, a quoted string, an identifier, a comment,
// a dollar-quoted string, an escape string, a placeholder) and whose rest
// is the content; rebind must turn exactly the placeholders into $n, with
// SQLite's numbering, and leave every other piece byte for byte.
func FuzzRebind(f *testing.F) {
	for _, s := range []string{
		`SELECT id FROM nodes WHERE org_id = ? AND id > ?`,
		"SELECT '?', \"?\", ? -- ?\n/* ? /* ? */ */ $$?$$ E'\\'?' ?7 ?",
		"\x00SELECT |\x07|\x00 AND b = |\x072|\x01it's ? here|\x02col?\"umn|\x03why?|\x04a /* ? */ b|\x05$x$ ?|\x06back\\slash ' ?|\x07",
		"\x07|\x0712|\x07|\x071|\x07",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		out := rebind(src)
		if !strings.Contains(src, "?") && out != src {
			t.Fatalf("rebind(%q) = %q: changed a query without placeholders", src, out)
		}
		if rewritten, added := strings.Count(src, "?")-strings.Count(out, "?"), strings.Count(out, "$")-strings.Count(src, "$"); rewritten != added {
			t.Fatalf("rebind(%q) = %q: %d placeholders rewritten into %d $", src, out, rewritten, added)
		}

		var in, want strings.Builder
		placeholders, last := 0, 0
		for piece := range strings.SplitSeq(src, "|") {
			if piece == "" {
				continue
			}
			text := piece[1:]
			var q string
			switch piece[0] % 8 {
			case 0: // plain SQL: no character that quotes, comments or binds
				q = " " + strings.Map(func(r rune) rune {
					if strings.ContainsRune(`'"?$-/\`, r) {
						return '_'
					}
					return r
				}, text) + " "
			case 1:
				q = "'" + strings.ReplaceAll(text, "'", "''") + "'"
			case 2:
				q = `"` + strings.ReplaceAll(text, `"`, `""`) + `"`
			case 3:
				q = "--" + strings.ReplaceAll(text, "\n", " ") + "\n"
			case 4:
				q = "/*" + strings.ReplaceAll(text, "/", "_") + "*/"
			case 5:
				q = "$t$" + strings.ReplaceAll(text, "$", "_") + "$t$"
			case 6:
				q = " E'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(text) + "'"
			case 7:
				placeholders++
				digits := strings.TrimLeft(text, "0")
				if n := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); n >= 0 {
					digits = digits[:n]
				}
				digits = digits[:min(len(digits), 4)]
				if digits == "" {
					last++
					in.WriteString(" ? ")
					want.WriteString(" $" + strconv.Itoa(last) + " ")
				} else {
					n, _ := strconv.Atoi(digits)
					last = max(last, n)
					in.WriteString(" ?" + digits + " ")
					want.WriteString(" $" + digits + " ")
				}
				continue
			}
			in.WriteString(q)
			want.WriteString(q)
		}
		if got := rebind(in.String()); got != want.String() {
			t.Fatalf("%d placeholders: rebind(%q)\n got %q\nwant %q", placeholders, in.String(), got, want.String())
		}
	})
}
