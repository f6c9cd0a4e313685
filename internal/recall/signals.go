package recall

import "regexp"

// Signals lists the scope signals recall understands, in the order
// package papermem's ScopeSignals lists them.
var Signals = []string{"open_questions", "mechanisms", "reliability", "what_to_build", "limitations", "evidence"}

// signalCues are the cues of each of Signals: a span that matches gets the
// signal's boost.
var signalCues = map[string]*regexp.Regexp{
	"open_questions": regexp.MustCompile(`(?i)\b(open (question|problem|issue)s?|remains? (unclear|unknown|open|to be)|future (work|research|studies)|further (work|research|studies) (is|are) needed|unresolved|not yet (known|understood|clear)|it is unclear)\b`),
	"mechanisms":     regexp.MustCompile(`(?i)\b(mechanism|pathway|mediat(es|ed|ing)|because|caus(es|ed|al)|leads? to|via|driven by|underl(y|ies|ying)|regulat(es|ed|ion)|process(es)? by which)\b`),
	"reliability":    regexp.MustCompile(`(?i)\b(reliab(le|ility)|reproduc(e|ible|ibility)|replicat(e|ed|ion)|robust(ness)?|confidence interval|\bci\b|standard (error|deviation)|p\s*[<=]|significan(t|ce)|sample size|bias|validity|variance|uncertaint(y|ies))\b`),
	"what_to_build":  regexp.MustCompile(`(?i)\b(we (propose|build|design|implement|present)|system|architecture|implementation|tool|framework|pipeline|api|prototype|deploy(ed|ment)?|design(ed)?|algorithm)\b`),
	"limitations":    regexp.MustCompile(`(?i)\b(limitations?|limited (by|to)|caveat|shortcoming|drawback|fails? to|does not generali[sz]e|threats? to validity|weakness(es)?|constrain(t|ed))\b`),
	"evidence":       regexp.MustCompile(`(?i)\b(evidence|show(s|ed|n)|demonstrat(e|es|ed)|found|observed|measured|results? (show|indicate|suggest)|data (show|suggest)|experiment(s|al)?|trial|cohort|\d+(\.\d+)?\s*%)`),
}

// A question that asks how many or how much is answered by a number: its
// spans that hold no numeral (a digit starting a word, or a number word)
// score quantityScale times as much, so that "How many papers does S2ORC
// contain?" finds the sentence that says 81.1M before those that share
// more of its words. Chosen on QASPER's odd papers (docs/measurements.md):
// 0.8 and 0.7 ranked alike.
const quantityScale = 0.8

var (
	quantityQuestion = regexp.MustCompile(`(?i)^\W*how (many|much)\b`)
	numeral          = regexp.MustCompile(`(?i)\b(\d|(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundreds?|thousands?|millions?|billions?|dozens?)\b)`)
)

// asksQuantity reports whether question asks how many or how much.
func asksQuantity(question string) bool { return quantityQuestion.MatchString(question) }
