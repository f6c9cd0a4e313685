package main

import (
	"fmt"
	"strings"

	"github.com/papermem/papermem/api"
)

// The agent's literature: structured abstracts on sleep and memory
// consolidation. The studies are invented for this example (DOIs under the
// 10.5555 test prefix), but written the way real abstracts are, so that
// papermem splits them into sections and finds their claims.

// paper is one abstract, in the shape of POST /v1/papers.
type paper struct {
	DOI     string   `json:"doi"`
	Title   string   `json:"title"`
	Authors []string `json:"authors"`
	Year    int      `json:"year"`
	OA      bool     `json:"oa"`
	Domain  string   `json:"domain"`
	Text    string   `json:"text"`
}

const domain = "neuroscience"

// DOIs the transcript and the test refer to.
const (
	doiCLAS        = "10.5555/slp.2021.0142"
	doiReplication = "10.5555/slp.2022.0019"
	doiNaps        = "10.5555/slp.2023.0204"
)

var papers = []paper{
	{doiCLAS, "Closed-loop auditory stimulation of slow oscillations enhances overnight retention of word pairs",
		[]string{"M. Okafor", "L. Brandt", "S. Iyer"}, 2021, true, domain, `Background
Slow oscillations of non-REM sleep are thought to orchestrate the transfer of new memories from hippocampus to neocortex.
Methods
Thirty-two healthy adults learned 120 word pairs in the evening and slept in the laboratory on two nights. On one night, closed-loop auditory stimulation delivered pink-noise clicks phase-locked to slow-oscillation up-states; the other night was sham.
Results
Stimulation increased slow-oscillation amplitude by 24% and fast spindle density by 15%. Overnight retention of word pairs was 18% higher after stimulation than after sham (p = 0.004), and the retention gain correlated with the increase in spindle density (r = 0.52).
Conclusions
Boosting slow oscillations with sound during sleep improves declarative memory consolidation.`},

	{"10.5555/slp.2020.0087", "Targeted memory reactivation during slow-wave sleep biases consolidation toward cued items",
		[]string{"J. Alvarez", "K. Nakamura"}, 2020, true, domain, `Background
Re-presenting learning cues during sleep may reactivate specific memories.
Methods
Forty-eight participants learned the locations of 60 objects, each paired with a characteristic sound. During slow-wave sleep, half of the sounds were replayed at low volume; a control group heard the sounds during REM sleep.
Results
Cued objects were placed with 11% smaller spatial error than uncued objects after slow-wave cueing (p = 0.01). Cueing during REM sleep had no effect on spatial error.
Conclusions
Targeted memory reactivation in slow-wave sleep, but not REM sleep, selectively strengthens cued memories.`},

	{"10.5555/slp.2019.0311", "Hippocampal sharp-wave ripples are necessary for consolidation of spatial memory in rats",
		[]string{"P. Duarte", "H. Lindqvist", "A. Mensah"}, 2019, false, domain, `Background
Sharp-wave ripples replay waking place-cell sequences during sleep.
Methods
Fourteen rats were trained on a radial-arm maze. Ripples detected in post-training sleep were disrupted by closed-loop optogenetic silencing of CA1; yoked controls received the same light pulses delayed by 200 ms.
Results
Ripple disruption reduced next-day maze performance by 35% relative to yoked controls (p < 0.001). Disruption during waking rest had no detectable effect.
Conclusions
Sleep ripples are necessary for the consolidation of spatial memory in rodents.`},

	{doiReplication, "Total sleep deprivation after learning impairs declarative but not procedural memory: a preregistered replication",
		[]string{"R. Hoffmann", "E. Mbeki", "T. Sato", "C. Laurent"}, 2022, true, domain, `Background
The claim that sleep after learning protects declarative memory rests largely on small studies.
Methods
In a preregistered multi-site replication, 120 adults learned word pairs and a finger-tapping sequence and were then randomised to a night of sleep or total sleep deprivation; retest followed two recovery nights.
Results
Sleep deprivation reduced word-pair retention with a standardised effect of d = -0.45 (95% CI -0.82 to -0.09). Finger-tapping speed did not differ between groups (d = 0.05, 95% CI -0.31 to 0.41). The declarative effect was about half the size reported by the original study.
Limitations
Participants were young students, and deprivation was total rather than partial.`},

	{doiNaps, "Daytime naps and memory consolidation in older adults: a randomised trial",
		[]string{"G. Petrov", "N. Osei"}, 2023, true, domain, `Background
Naps improve memory in young adults, but older adults have less slow-wave sleep.
Methods
Ninety adults aged 65 to 80 learned a story and a face-name list, then either napped for 45 minutes or rested awake, in random order on two days.
Results
Naps did not significantly improve retention in older adults: the difference was 2.1% (95% CI -3.0 to 7.2). Within the nap condition, minutes of slow-wave sleep predicted retention (beta = 0.28, p = 0.03).
Conclusions
A short nap is no reliable memory aid in older adults; the amount of slow-wave sleep may matter more than napping itself.`},

	{"10.5555/slp.2018.0456", "Spindle and slow-oscillation coupling predicts overnight memory retention across the lifespan",
		[]string{"D. Ferreira", "Y. Cohen", "B. Adeyemi"}, 2018, false, domain, `Background
Memory reactivation is thought to depend on spindles arriving at the up-state of slow oscillations.
Methods
Polysomnography was recorded in 104 participants aged 20 to 80 after they learned word pairs.
Results
The precision of spindle and slow-oscillation coupling predicted overnight retention (beta = 0.31, p < 0.001). Coupling precision declined with age and statistically mediated the age-related loss of retention.
Limitations
The design is correlational: coupling was measured, not manipulated.`},

	{"10.5555/slp.2024.0033", "REM sleep and emotional memory: a meta-analysis",
		[]string{"F. Moreau", "I. Kowalski"}, 2024, true, domain, `Background
REM sleep has been proposed to consolidate emotional memories selectively.
Methods
We pooled 27 studies with 1,142 participants that compared memory for negative and neutral material after sleep with and without REM sleep.
Results
REM sleep was associated with a small advantage for negative over neutral material (g = 0.19, 95% CI 0.04 to 0.34), with high heterogeneity (I2 = 71%). Funnel-plot asymmetry suggested publication bias; after correction the effect was no longer significant.
Conclusions
The evidence that REM sleep selectively consolidates emotional memory is weak.`},
}

// notesFile is the lab's journal-club notes, ingested as a Markdown
// document. It names studies by author and year, not by DOI: a file with a
// DOI would be stored as that paper's full text.
const notesFile = "journal-club-2024-05-14.md"

// notesMarkdown generates the notes from the abstracts' authors, so that
// they point at the same studies the literature memory holds.
func notesMarkdown() string {
	first := func(doi string) string {
		for _, p := range papers {
			if p.DOI == doi {
				name := p.Authors[0]
				return fmt.Sprintf("%s et al. (%d)", name[strings.Index(name, " ")+1:], p.Year)
			}
		}
		panic("no paper " + doi)
	}
	return fmt.Sprintf(`# Journal club: sleep and memory consolidation

Notes of 14 May 2024; present: Ada, Bruno, Chen.

## What we agreed on

Slow-wave sleep carries most of the consolidation effect in the studies we read. %s showed that sound-driven slow oscillations raised word-pair retention, and the gain tracked spindle density.

## Reliability concerns

The preregistered replication by %s found a declarative deficit after sleep deprivation only half as large as the original report. Most positive findings come from samples under 50 participants, so effect sizes are likely inflated.

## Open questions

It remains unclear whether spindle coupling causes consolidation or merely accompanies it; no study we read manipulated coupling directly. We do not know whether closed-loop stimulation helps older adults, whose slow-wave sleep is reduced.

## What to build next

A pilot that combines closed-loop stimulation with the nap protocol of %s in adults over 65, with retention measured at 24 hours and at one week.
`, first(doiCLAS), first(doiReplication), first(doiNaps))
}

// analysis is the agent's critical reading of the replication study, in
// the shape of POST /v1/analysis.
var analysis = api.AnalysisRequest{
	DOI:          doiReplication,
	CoreClaim:    "Sleep deprivation after learning impairs declarative but not procedural memory.",
	Acceptance:   "accept with minor revisions",
	Scorecard:    "design 5/5, sample 4/5, generalisability 2/5",
	SharpestFlaw: "Only young students were tested, so the effect may not hold in older adults.",
	Markdown: `## Analysis: preregistered sleep-deprivation replication

The study is the strongest evidence in our set: preregistered, multi-site and adequately powered. It confirms that total sleep deprivation impairs word-pair retention, but the effect (d = -0.45) is about half the original estimate, which suggests the first report was inflated.

## Limitations

The sample was young students only, and total deprivation is a blunt manipulation; the result says nothing about partial sleep loss or older adults.`,
}

// preference is what the user tells the agent once, to be remembered for
// later sessions; distraction is another memory the preference must beat.
var (
	preference = api.RememberRequest{
		Key:  "reporting-style",
		Text: "Ada wants effect sizes reported with 95% confidence intervals, and prefers human randomised trials over rodent studies.",
		Tags: []string{"preference", "reporting"},
	}
	distraction = api.RememberRequest{
		Key:        "grant-deadline",
		Text:       "Ada's grant proposal on sleep in older adults is due on 30 September 2024.",
		Tags:       []string{"deadline"},
		OccurredAt: "2024-05-14",
	}
)
