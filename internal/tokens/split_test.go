package tokens

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem/internal/testenv"
)

// pattern is splitPattern compiled as tiktoken-go/tokenizer compiles it:
// regexp2 finds the code generated for it, which the encoder runs.
var pattern = regexp2.MustCompile(splitPattern, regexp2.None)

// wantPieces splits s with the encoder's matcher.
func wantPieces(t testing.TB, s string) []string {
	var out []string
	m, err := pattern.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = pattern.FindNextMatch(m) {
		out = append(out, m.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gotPieces(s string) []string {
	var out []string
	for s != "" {
		if s[0] == del {
			s = s[1:]
			continue
		}
		k := pieceLen(s)
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// The encoder's matcher departs from the pattern (see splitPattern):
// make sure that the tests compare with it.
func TestEncoderMatcher(t *testing.T) {
	for s, want := range map[string][]string{
		"'\x7f.": {"'", "."},
		"\n \nx": {"\n", " \n", "x"},
	} {
		if got := wantPieces(t, s); !cmp.Equal(got, want) {
			t.Errorf("encoder splits %q as %q, want %q", s, got, want)
		}
	}
}

// Every rune in contexts that tell the pattern's classes apart and in the
// places of the contractions' letters. The contexts are joined by U+007F,
// which both splits skip, into one text per block of runes. Past the last
// assigned characters (U+323AF) only the tags and variation selectors at
// U+E0000 and a sample of the unassigned and private-use runes are tried.
func TestRunes(t *testing.T) {
	var b strings.Builder
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r > 0x323ff && (r < 0xe0000 || r > 0xe0fff) && r%61 != 0 {
			continue
		}
		if r < utf8.RuneSelf && asciiClass[r] != slowClass(r) && r != del {
			t.Fatalf("asciiClass[%U] = %d, slowClass %d", r, asciiClass[r], slowClass(r))
		}
		if utf8.ValidRune(r) {
			// After a letter, before one, after a number, after
			// punctuation, between spaces, and before a line break.
			c := string(r)
			b.WriteString("x" + c + "x." + c + "1" + c + " " + c + " " + c + "\n")
			b.WriteByte(del)
			if r < 0x200 {
				for _, s := range []string{"'" + c, "'" + c + "e", "'r" + c, "'v" + c, "'l" + c, "'L" + c + "x"} {
					b.WriteString(s)
					b.WriteByte(del)
				}
			}
		}
		if r%4096 == 4095 || r == unicode.MaxRune {
			s := b.String()
			if got, want := gotPieces(s), wantPieces(t, s); !slices.Equal(got, want) {
				t.Fatalf("runes %U-%U: split differs (-got +want):\n%s", r-4095, r, cmp.Diff(got, want))
			}
			b.Reset()
		}
	}
}

// alphabet holds runes of every class and the runes the pattern names.
var alphabet = []rune("aZé'sStTrReEvVmMlLdDſ \t\n\r\v\f\u0085\u00a0\u2028\u3000.,!?-\"()%$€🎉\u0301\u200d09٣²½日本x\x00")

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteRune(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

func TestSplit(t *testing.T) {
	check := func(name, s string) {
		t.Helper()
		if got, want := gotPieces(s), wantPieces(t, s); !cmp.Equal(got, want) {
			t.Fatalf("%s: split differs (-got +want):\n%s", name, cmp.Diff(got, want))
		}
	}
	for _, s := range []string{"", "a", " ", "  ", "  a", "\n", " \n ", "a \n\n b", "x  \t\r\n  y", "don't", "IT'S", "'sa",
		"12345", "a1b22", " ...", " ...\r\n\n x", "\u3000\u3000x", "\u3000x", "x\u3000", "é\u0301t", "emoji 🎉🎉 done"} {
		check(s, s)
	}
	for _, path := range testDocs(t) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if utf8.Valid(b) {
			check(path, string(b))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		check("random "+string(rune('0'+i%10)), randomText(r, 1+r.IntN(40)))
	}
}

// testDocs lists the shared test documents in text formats.
func testDocs(t testing.TB) []string {
	var out []string
	for _, g := range []string{"txt/*", "md/*", "csv_tsv/*", "json/*"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "testdocs", g))
		out = append(out, m...)
	}
	if len(out) == 0 {
		testenv.Need(t, "../shared/testdocs", errors.New("no text documents there"))
	}
	return out
}

// reference counts tokens with the encoder alone.
func reference(s string) int {
	ids, _, err := cl100k().Encode(s)
	if err != nil {
		return len(s)
	}
	return len(ids)
}

func TestCountMatchesEncoder(t *testing.T) {
	for _, path := range testDocs(t) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if got, want := Count(s), reference(s); got != want {
			t.Errorf("%s: Count = %d, encoder %d", path, got, want)
		}
		// Every line too, so that cached pieces are checked in new company.
		for _, line := range strings.SplitAfter(s, "\n") {
			if got, want := Count(line), reference(line); got != want {
				t.Fatalf("%s: Count(%q) = %d, encoder %d", path, line, got, want)
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		s := randomText(r, 1+r.IntN(60))
		if got, want := Count(s), reference(s); got != want {
			t.Fatalf("Count(%q) = %d, encoder %d", s, got, want)
		}
	}
}

func FuzzCount(f *testing.F) {
	for _, s := range []string{"hello world", "can't won't I'LL", "x  \t\r\n  y", "Ünïcödé 123456", "\xff\xfe bad", "ſ'ſ 'ſ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Count(s), reference(s); got != want {
			t.Fatalf("Count(%q) = %d, encoder %d", s, got, want)
		}
		if utf8.ValidString(s) {
			if got, want := gotPieces(s), wantPieces(t, s); !cmp.Equal(got, want) {
				t.Fatalf("split %q: got %q, want %q", s, got, want)
			}
		}
	})
}
