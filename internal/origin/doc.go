// Package origin looks papers up in the public scholarly metadata services:
// Crossref for a DOI's metadata, its retractions and corrections, and for
// turning a title into a DOI; OpenAlex as the fallback for DOIs Crossref
// does not know (arXiv's DataCite DOIs among them) and as a second source of
// open-access copies; Unpaywall for open-access full-text URLs. arXiv is
// never asked anything: its PDF URL is derived from the arXiv id.
//
// What is sent. Each request carries one DOI (in the URL's path) or, for
// Resolve, one title (Crossref's query.bibliographic parameter), and
// nothing else about the caller's papers or users. When Options.Contact
// is set, the operator's e-mail address goes along: to Crossref and
// OpenAlex as the mailto parameter and in the User-Agent header
// ("papermem/<version> (mailto:<contact>)"), which places the requests in
// those services' polite pools; to Unpaywall as the email parameter, which
// Unpaywall requires: without a contact address it is asked with none
// (the public Unpaywall refuses such requests, and the open-access status
// then comes from OpenAlex alone; a stand-in may answer). Options.OpenAlexKey, when set, goes to OpenAlex only, as api_key.
//
// Every request is bounded: at most Options.Concurrency in flight per
// service, Options.Timeout per attempt, Options.MaxBytes per body; 429,
// 5xx and transport failures are retried with exponential backoff and
// jitter, honouring Retry-After. Successful answers are kept in the
// optional Options.Cache.
//
// No language model is involved anywhere: matching a title to a DOI is a
// token-overlap comparison.
package origin
