// Package aggregator federates many Memento archives behind one TimeMap and
// TimeGate service, the way the Time Travel service (LANL) and MemGator do,
// and adds what neither has: routing by MementoMaps, which skips the
// archives that certainly hold nothing for a URI-R without ever losing a
// memento.
//
// # Why routing matters
//
// Three years of one aggregator's logs show 93.6 % of its upstream requests
// were misses or errors. A MementoMap (internal/spec/MEMENTOMAP.md) is an archive's
// published summary of what it holds, with zero false negatives: when it
// says "absent", the archive has nothing. The router asks an archive unless
// its map, loaded and not older than Options.MapMaxAge and readable, says
// absent for the URI-R (no matching key, or a matched frequency of 0). A
// missing, stale or unreadable map never skips anything. Per archive,
// Stats counts the requests sent and the requests saved.
//
// # The pieces
//
//   - Archives: a registry read from MemGator's JSON list (ParseArchivesJSON)
//     or the Time Travel archivelist.xml (ParseArchivesXML). Per archive: a
//     request timeout, a rate limit (golang.org/x/time/rate), a concurrency
//     limit, and an optional MementoMap from a file, a URL, or discovered at
//     the archive's /.well-known/mementomap or a rel="mementomap" link
//     (LoadMaps, StartMapRefresh; swapped atomically, SetMap).
//   - Rules: the Time Travel rules.json (ParseRules): per-service default
//     lists and URL-pattern rules. Unlike the original, whose rules live in a
//     hash map, overlapping rules resolve in file order, and archive ids the
//     registry does not know are reported (Rules.Unknown) instead of being
//     dropped silently.
//   - Routing (Route): the rule's archives, minus dormant ones, minus those
//     whose map says absent.
//   - Searches (Search): dynamic ones ask TimeGates (the TimeGate and Time
//     Travel endpoints) or fetch TimeMaps (the TimeMap endpoint) from the
//     rule's dynamic list within a short budget (20 s); thorough ones fetch
//     whole TimeMaps, following rel="timemap" pages, from the cache or batch
//     lists within a long budget (150 s). Archives are asked in parallel
//     (at most Options.FanOut at once), and a search stops waiting at its
//     budget whatever an Upstream does; identical concurrent searches share one fan-out
//     (singleflight); results are merged, de-duplicated and sorted. Each
//     Result carries one Outcome per archive: found, none, skipped by map,
//     dormant, or failed with a reason (timeout, reset, status-503,
//     too-large, redirect-loop, wrong-content-type, ...). An archive that
//     fails Options.Tolerance times in a row sleeps for Options.DormantFor.
//   - Upstreams: HTTPUpstream (the default) speaks RFC 7089 with the memento
//     package's streaming link-format reader; ClientUpstream wraps
//     memento.Client. Any other Upstream (a test double, a proxy) plugs in
//     through Options.Upstream.
//   - Cache scenarios (Lookup) over the cache package's interface, as the
//     Time Travel service documents them (below).
//   - Refresh (RunWorkers, RunOneJob, ScanStale, RunScanner): workers drain
//     the cache's job queue, live jobs before stale ones; several processes
//     may share one MySQL cache, and each job is run once.
//   - Blacklist (ParseBlacklist): a host or any of its subdomains gets 403
//     without any archive being asked.
//   - HTTP API (Handler): TimeMaps in link, JSON and CDXJ form, paged
//     TimeMaps, the TimeGate, /memento, /api/json and /list.
//
// # Cache scenarios
//
// With a cache (Options.Cache), Lookup follows internal/spec/TIMETRAVEL.md §1.1:
//
//   - fresh hit (updated within 30 days): served from the cache;
//   - stale hit: answered by a dynamic search now, and a thorough search is
//     queued (priority cache.PriorityRefresh); if every archive fails, the
//     stale mementos are served rather than a false "not found";
//   - cached "no mementos": 404 from the cache if searched less than 10
//     minutes ago, else searched again;
//   - unknown URI-R: dynamic search, and a thorough search queued
//     (cache.PriorityLive).
//
// Cache-Control: no-cache forces a search only when the entry is older than
// 10 minutes. This is the Time Travel rule, and it deliberately wins over
// the stricter reading of the public case AGG-06 (always fetch): it keeps a
// client that sends no-cache on every request from turning the aggregator
// into a request amplifier against the archives. only-if-cached never
// searches: a cached answer, 404 for a cached "none", 504 for an unknown
// URI-R. A failure is never stored as "no mementos": a search in which some
// archive failed and none found anything stores nothing, and a search that
// found mementos while some archive failed is stored as
// cache.StatusFailed, so that the next request searches again rather than
// serving it for 30 days. A dynamic search is stored directly only when it
// is as thorough as a refresh (whole TimeMaps from every archive of the
// cache and batch lists), which is the case without a rules file.
//
// # HTTP statuses and headers
//
// 400 for a bad URI-R, datetime or Accept-Datetime (which must be an RFC
// 1123 date in GMT, RFC 7089 §2.1.1; parsed with http.TimeFormat, never
// time.RFC1123); 403 for a blacklisted host; 404 when no memento is found;
// 502 when every archive that could hold mementos failed or is dormant;
// 504 for an only-if-cached miss or when every asked archive timed out;
// POST is answered as GET (MemGator answers every method as GET); 405
// with Allow: GET, HEAD, POST, OPTIONS for PUT, DELETE and any other
// method that asks for a change; a URI-R longer than
// MaxURIRLen (1024 bytes) is a 400. Every aggregated response names the
// archives that failed, and those not asked because they are dormant, in
// an Archive-Failures header ("ia=timeout, ukwa=status-503, bl=dormant"),
// absent when none did, so that a client can tell "not archived" from
// "archives down". A result with failed or dormant archives is never
// cached as "none".
//
// The closest memento is the one nearest the requested datetime; an exact
// tie between an earlier and a later memento goes to the later one (as the
// Time Travel service and MemGator do; RFC 7089 leaves it to the server),
// and among mementos of the same second the best-ranked archive (registry
// order) wins, so the choice is the same on every run.
//
// # Compared with MemGator
//
// The recorded transcripts of MemGator 1.0-rc9
// (internal/sampledata/cases/memgator_transcripts.md) are the reference for
// the TimeMap layouts: /timemap/link, /timemap/json (a memento's "uri" is a
// string) and /timemap/cdxj have MemGator's links, keys and order, and the
// TimeGate Link header merges rels as MemGator writes them ("first prev
// memento"). Compatible: the URI-R is the rest of the raw path, query
// included; a missing scheme becomes http://; a URI-R percent-encoded as a
// whole is decoded once; the format name is case-sensitive (400); a bad
// Accept-Datetime or path datetime is a 400; X-Memento-Count is sent.
// Better:
//
//   - mementos of the same second from different archives are ordered by
//     archive rank, not by which answered first (AGG-04), and the very same
//     URI-M listed by two archives appears once;
//   - unparsable datetimes from an archive are dropped, never passed on;
//   - POST is answered as GET, as MemGator, but a method that asks for a
//     change (PUT, DELETE, ...) is a 405, where MemGator answers it as GET;
//   - a failure is distinguishable from "not archived": 502/504 and
//     Archive-Failures, where MemGator answers 404 or a partial 200;
//   - 302, 303 and 307 TimeGate answers and the 200-with-Content-Location
//     pattern all count (AGG-01; MemGator drops a 307, issue #129);
//   - TimeMaps are followed across pages (MemGator#33);
//   - every answer is judged by one rule, the same for TimeMaps and
//     TimeGates (Class): only failures that say the archive is unwell
//     (network errors, timeouts, 5xx, 408, 429) count towards dormancy,
//     once per URI-R unless the request never reached the archive; an
//     answer over a cap for one URI-R (body size, pages) or a URI-R's own
//     4xx does not, and neither does a malformed answer (an empty or
//     unparsable 200, an HTML page), which is a failure, never cached as
//     "none";
//   - an upper-case scheme is lower-cased instead of giving 404; a URI-M
//     containing ';' is kept whole (MemGator cuts it, issue #79);
//   - /api/json is the Time Travel JSON ("uri" an array of every URI-M of
//     the second, prev and next omitted when equal to first and last).
//
// Not implemented from the Time Travel service: peer caches, the "native"
// archive of a URI-R's own host, the ML pruning service, rules whose
// patterns come from a remote JSON document ("api" is read but not
// fetched), and the /map, /nostalgic, /redirect and /batchcachein pages.
//
// # Memory and time bounds
//
// An upstream body is read into one string and capped at
// Options.MaxBodyBytes (32 MiB) per archive answer: a TimeMap's pages
// count together, and nothing past the cap is read; TimeMaps follow at
// most Options.MaxPages pages per archive. An answer cut by one of these
// caps, by a timeout after the archive began answering, or by the
// search's budget while the archive was answering, keeps the mementos
// read before the cut, and the result names the archive in
// Archive-Failures (ReasonTooManyPages, ReasonTooLarge, ReasonSlowAnswer,
// ReasonBudgetCut). The URI-Ms of a page in the plain layout are
// substrings of its text: a search allocates about 2 bytes per body byte
// (the text, and about 0.8 for the mementos; BenchmarkSearchBodyAlloc),
// and TestBodyCapBoundsMemory checks 24 times MaxBodyBytes per request
// against upstream TimeMaps of 256 MiB. What stays after a request is
// what the cache keeps and the prepared entries of the Handler (at most
// 64 MiB in all).
//
// # Memory across requests
//
// The body bytes held by all searches at once are bounded by
// Options.BodyMemory (DefaultBodyMemory, 256 MiB; the server's
// body_memory and -body-memory). A body of unknown length (chunked) is
// charged as its bytes arrive, at most 32 KiB ahead of each read, what a
// read did not give going back at once; a body with a Content-Length is
// charged all of it (up to MaxBodyBytes) before its first byte is read,
// so it never waits halfway. An eighth of the budget is kept for the
// first bytes of bodies (the first 128th of the budget of each): bytes
// past them never use it, so a greedy body cannot keep the small answers
// of other searches out, and a search that holds nothing yet keeps off
// the last half of it, so that searches that hold bytes finish first.
// The bytes past a body's first take turns: a body grows only while the
// budget, less the kept eighth, still has room for every elder growing
// body to read to its cap; the eldest always may. A request that does
// not fit waits, at most Options.BodyMemoryWait (DefaultBodyMemoryWait;
// -body-memory-wait) and within the archive's timeout. A search's bytes
// are held until every caller that waited for it is done with its
// Result: the Handler's request once its answer is written and stored in
// the cache, Refresh once stored, Search when it returns (a Result
// returned by Search is its caller's). A refusal ends the archive's
// answer with one of two reasons, neither counted toward the archive's
// dormancy (ClassPerURI): ReasonMemoryBusy when a body that could not
// begin (nothing read, or a Content-Length body) waited to the end,
// which the HTTP API answers 503 with Retry-After (BusyRetryAfter
// seconds) and the headline "Busy: ...", storing nothing;
// ReasonOverMemoryBudget when the budget cannot hold the answer: this
// search alone would hold more than the budget allows bodies past their
// first bytes (a body whose Content-Length is over it is not read: the
// only archive asked, a 502 naming it in Archive-Failures and the
// headline; one of unknown length keeps the mementos read before), or a
// body of unknown length that holds bytes gave way: to a body waiting to
// begin, to the eldest growing body that its bytes keep from fitting, or
// at the end of its wait. The eldest growing body so cut keeps its
// mementos; any other gives its bytes back at once and keeps none. An
// answer cut so is partial: the archive named in Archive-Failures, the
// result not complete.
// BodyMemory reports the limit, the bytes held, the peak and the
// refusals (the server's mementokit_body_memory_bytes and
// mementokit_body_memory_refused_total). TestBodyMemoryTakesTurns,
// TestBodyMemoryHeldWhileWriting, TestBodyMemoryBusy,
// TestBodyMemoryOverBudget, TestBodyMemoryBodyOverBudget and
// TestBodyMemoryEndlessChunked check these rules against 127.0.0.1
// archives.
//
// The budget counts body bytes; the process holds more per body byte: the
// parsed mementos, the merged list, the answer written, and the garbage
// collector's headroom. The resident memory of a server is about 5.5
// times the default budget and 7 times a 64 MiB one when every answer is
// at the cap (internal/bench/bodymemory: eight parallel uncached
// TimeMaps of 1,000,000 mementos cut at the 32 MiB MaxBodyBytes, all
// eight answered 200; VmHWM 1,209 to 1,465 MB with 256 MiB, 464 to 482
// MB with 64 MiB; sixteen in parallel with 256 MiB under a 4 GB address
// space limit, 1,358 MB): size BodyMemory as about a sixth of the memory
// the process may use. The examples/aggregator server sets the Go memory
// limit to 6 times the budget plus 64 MiB unless GOMEMLIMIT is set.
//
// Every upstream
// request has the archive's timeout, every search its budget, and a
// search outlives the callers that gave up on it only until that budget.
// Every cache call of a request has a deadline (Options.CacheTimeout); a
// cache that fails or hangs is left out and the request answered by
// searching (Cache-Degraded).
//
// # Hosts contacted
//
// The aggregator contacts only the hosts its archive list names (AllowList:
// the TimeMap, TimeGate and MementoMap URLs of every archive, and the hosts
// an archive's configuration adds with Archive.Hosts). Every request and
// every redirect hop is checked before a connection is made, so that no
// archive answer (a redirect, a rel="timemap" page link, a TimeGate's
// Location and the HEAD of it, a rel="mementomap" link) can make it ask
// anything else; a refusal fails that answer (ReasonHostNotAllowed) and is
// counted (Stats.Refused). Hosts are compared in their one spelling
// (NormalizeHost), as the blacklist compares them. The repository's
// SECURITY.md lists these promises and the tests that hold them.
package aggregator
