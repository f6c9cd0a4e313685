package store

import (
	"strconv"
	"strings"
)

// rebind rewrites the parameters of query, written as SQLite takes them (?
// and ?NNN), as PostgreSQL's $n, leaving alone what is inside quoted
// strings ('…', E'…' with backslash escapes, $tag$…$tag$), quoted
// identifiers ("…") and comments (-- to the end of the line, /* … */,
// nested as PostgreSQL nests them). Numbering follows SQLite: ?NNN is
// parameter NNN, and a bare ? is one more than the largest number given so
// far. Anything unterminated is copied as it is, for the server to refuse.
func rebind(query string) string {
	if strings.IndexByte(query, '?') < 0 {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	last := 0  // largest parameter number given so far
	word := -1 // start of the identifier or keyword being copied, -1 outside one
	for i := 0; i < len(query); {
		c := query[i]
		if word >= 0 && identByte(c) {
			// Still in the word: $ belongs to identifiers too (a$b).
			b.WriteByte(c)
			i++
			continue
		}
		j := i + 1 // end of what this step copies
		switch {
		case c == '\'':
			// E'…' is an escape string, whose backslashes escape.
			j = skipString(query, i, word >= 0 && word == i-1 && (query[word] == 'E' || query[word] == 'e'))
		case c == '"':
			j = skipString(query, i, false)
		case c == '-' && strings.HasPrefix(query[i:], "--"):
			j = len(query)
			if n := strings.IndexByte(query[i:], '\n'); n >= 0 {
				j = i + n + 1
			}
		case c == '/' && strings.HasPrefix(query[i:], "/*"):
			j = skipComment(query, i)
		case c == '$':
			j = skipDollar(query, i)
		case c == '?':
			for j < len(query) && '0' <= query[j] && query[j] <= '9' {
				j++
			}
			digits := query[i+1 : j]
			if digits == "" {
				last++
				digits = strconv.Itoa(last)
			} else if n, err := strconv.Atoi(digits); err == nil {
				last = max(last, n)
			}
			b.WriteString("$" + digits)
			word, i = -1, j
			continue
		}
		if identByte(c) && c != '$' {
			word = i
		} else {
			word = -1
		}
		b.WriteString(query[i:j])
		i = j
	}
	return b.String()
}

// identByte reports whether c may be part of an identifier or keyword.
func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// skipString returns the end of the text quoted at q[i] by q[i], a doubled
// quote standing for one (and, with backslash, a backslash escaping the
// next byte), or len(q) when it does not end.
func skipString(q string, i int, backslash bool) int {
	quote := q[i]
	for j := i + 1; j < len(q); j++ {
		switch q[j] {
		case '\\':
			if backslash {
				j++
			}
		case quote:
			if j+1 < len(q) && q[j+1] == quote {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(q)
}

// skipComment returns the end of the block comment opening at q[i],
// counting nested comments, or len(q) when it does not end.
func skipComment(q string, i int) int {
	depth := 0
	for j := i; j+1 < len(q); j++ {
		switch {
		case q[j] == '/' && q[j+1] == '*':
			depth++
			j++
		case q[j] == '*' && q[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(q)
}

// skipDollar returns the end of the dollar-quoted string opening at q[i]
// ($$…$$ or $tag$…$tag$), len(q) when it does not end, or i+1 when q[i]
// opens none (a positional parameter such as $1, or a lone $).
func skipDollar(q string, i int) int {
	j := i + 1
	for j < len(q) && identByte(q[j]) && q[j] != '$' && !(j == i+1 && '0' <= q[j] && q[j] <= '9') {
		j++
	}
	if j >= len(q) || q[j] != '$' {
		return i + 1
	}
	tag := q[i : j+1]
	end := strings.Index(q[j+1:], tag)
	if end < 0 {
		return len(q)
	}
	return j + 1 + end + len(tag)
}
