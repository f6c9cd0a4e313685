package papermem

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// doiPattern finds a DOI in free text or a URL.
var doiPattern = regexp.MustCompile(`(?i)\b10\.\d{4,9}/[^\s"'<>]+`)

// NormalizeDOI trims s, strips a "doi:" prefix or a doi.org URL, and
// lower-cases it. Ids of the form "local:<hash>" are kept. It returns ""
// when s is neither a DOI nor a local id.
func NormalizeDOI(s string) string {
	// A DOI in a URL path may arrive with its slash escaped.
	low := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "%2F", "/"))
	low = strings.ReplaceAll(low, "%2f", "/")
	if strings.HasPrefix(low, "local:") && len(low) > len("local:") {
		return low
	}
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi.org/", "doi:"} {
		if strings.HasPrefix(low, p) {
			low = strings.TrimSpace(low[len(p):])
			break
		}
	}
	if !strings.HasPrefix(low, "10.") || !strings.Contains(low, "/") || strings.ContainsAny(low, " \t\n") {
		return ""
	}
	return low
}

// FindDOI returns the first DOI in s (a URL or text), normalised, or "".
func FindDOI(s string) string {
	m := doiPattern.FindString(s)
	if m == "" {
		return ""
	}
	// Trailing punctuation belongs to the sentence, not the DOI.
	m = strings.TrimRight(m, ".,;:)]}")
	return NormalizeDOI(m)
}

// localID derives the stable id "local:<hash>" of a paper without a DOI
// from its title or URL.
func localID(key string) string {
	key = strings.ToLower(strings.Join(strings.Fields(key), " "))
	sum := sha256.Sum256([]byte(key))
	return "local:" + hex.EncodeToString(sum[:8])
}

// isLocalID reports whether id is a local id (localID), not a DOI.
func isLocalID(id string) bool { return strings.HasPrefix(id, "local:") }
