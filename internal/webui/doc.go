// Package webui is the aggregator's human face: a search form at "/" and the
// result view at /list/{datetime}/{URI-R}, the page the Time Travel service
// (LANL) serves at the same path (internal/spec/TIMETRAVEL.md §1.3), rendered with
// html/template and one small embedded style sheet, with no JavaScript and
// no build step.
//
// # Pages
//
//	GET /                                the form: a URL and an optional date
//	GET /search?url=U&date=D             303 to /list/{YYYYMMDDhhmmss}/{URI-R}
//	GET /list/{datetime}/{URI-R}         the result view
//	GET /static/style.css                the style sheet
//
// The result view names the closest memento to {datetime} with links to the
// first, previous, next and last mementos of the merged list, then one row
// per archive the aggregator considered: found (its closest memento and its
// own first, previous, next and last), no mementos, skipped because its
// MementoMap says it holds nothing, dormant, or failed with the reason
// (timeout, status-503, ...); then one row per other archive of the
// registry, not asked: left out by top-k or not listed by the rules for
// the service. It links to the TimeMap in each format
// (link, JSON, CDXJ), the TimeGate and the /api/json description, served by
// the aggregator's HTTP API (aggregator.Handler) on the same host.
//
// {datetime} and {URI-R} follow the aggregator's HTTP API: the URI-R is the
// rest of the raw request target, query included, normalised by
// aggregator.NormalizeURIR; {datetime} is YYYY[MM[DD[hh[mm[ss]]]]] or an HTTP
// date (aggregator.ParsePathDatetime). The form also accepts dates written
// 2006-01-02, 2006-01-02T15:04 or 2006-01-02 15:04:05, as browsers' date
// fields send them; an empty date means now.
//
// # Statuses
//
// 200 with mementos; 404 when no archive holds one (the page still lists
// what each archive answered); 403 for a blacklisted host, before any
// archive is asked; 400 for a bad URI-R or date (the form is shown again with
// the error); 502 when every asked archive failed; 504 when every asked
// archive timed out or, with Cache-Control: only-if-cached, the URI-R is not
// cached; 503 when the lookup ended before an answer (the client left or
// the aggregator is closing); 405 with Allow: GET, HEAD for other methods.
// Every page is HTML; result pages carry Link (rel="original"),
// X-Memento-Count, Last-Modified and, when an archive failed,
// Archive-Failures, as the aggregator's API does.
//
// # Memory
//
// A page holds the mementos of one lookup (about 150 bytes each) and its
// rendering; the templates are parsed once, in New.
package webui
