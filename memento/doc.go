// Package memento reads and writes the Memento protocol (RFC 7089) as real
// web archives speak it: link-format TimeMaps and Link headers (RFC 8288,
// RFC 6690), Memento datetimes, the TimeMap forms aggregators serve, and an
// HTTP client for TimeMaps, TimeGates and mementos.
//
// # The protocol in brief
//
// An original resource (URI-R) has mementos (URI-M), each a capture at a
// Memento-Datetime. A TimeGate (URI-G) redirects an Accept-Datetime to the
// closest memento; a TimeMap (URI-T) lists every memento in
// application/link-format:
//
//	<http://a.example.org/>;rel="original",
//	<http://arxiv.example.net/web/20000620180259/http://a.example.org/>
//	  ; rel="first memento";datetime="Tue, 20 Jun 2000 18:02:59 GMT",
//	...
//
// # Link format
//
// Every HTTP date contains a comma, targets may contain ',' ';' and '=', and
// archives fold lines, reorder rel tokens and forget quotes: splitting on
// commas loses every memento. ParseLinkFormat (one header value) and Reader
// (a stream of any size, bounded memory) tokenize instead: only '>' ends a
// target, quoted strings are data, whitespace including line breaks may
// surround '=', ';' and ','. rel is a case-insensitive set and only the first
// rel parameter counts; unknown parameters are kept; targets are resolved
// against the response URI, scheme-relative ones included. Strict mode
// rejects anything outside the RFC 8288 §3 grammar with a *ParseError naming
// the byte offset; lenient mode (the default) recovers what a person would
// read and never invents a target or a date.
//
// # TimeMaps
//
// ReadTimeMap turns a body into a TimeMap: original, timegate, self, pages
// (rel="timemap") and mementos sorted by datetime then URI-M, identical
// (URI-M, datetime) pairs once, distinct URI-Ms of the same second all kept.
// First and Last select the ends; Closest (ClosestIndex) the memento a
// TimeGate answers for a datetime: when a datetime is exactly half-way between
// two mementos the later one is closest, as in the Time Travel service and
// MemGator. Prev and Next (PrevIndex and NextIndex) take a memento's index and
// select its rel="prev" and rel="next" neighbours, which RFC 7089 defines
// relative to a memento, not to a datetime. WriteLinkFormat, WriteJSON and WriteCDXJ write
// the three forms MemGator serves; WriteTimeTravelJSON the Time Travel
// /api/json answer, whose "uri" is an array of every URI-M of the second.
// NavigationLinks gives the first/prev/memento/next/last Link header a
// TimeGate sends (FormatLinks) or a memento description body (WriteLinks).
//
// # Datetimes
//
// ParseHTTPDate accepts only the RFC 7089 §2.1.1 form (http.TimeFormat; note
// that time.RFC1123 silently accepts other zones); ParseHTTPDateLenient reads
// the variants archives send; ParseDatetime reads either an HTTP date or a
// timestamp (package timestamp owns the digits: timestamp.Parse reads 4 to 17
// digits YYYY[MM[DD[hh[mm[ss[SSS]]]]]], timestamp.Format writes 14, or 17 with milliseconds).
// AcceptDatetime tells a TimeGate server an absent header (answer with the
// latest memento) from a malformed one (answer 400).
//
// # Memory and limits
//
// Reader holds one link-value (at most ParseOptions.MaxLinkBytes, 1 MiB by
// default) and a 32 KiB buffer whatever the input size. ReadTimeMap keeps the
// mementos (one allocation per link for its strings, about 250 bytes per
// memento in all) and can be capped with ParseOptions.MaxMementos. WriteJSON
// and WriteTimeTravelJSON build their document in memory; WriteLinkFormat and
// WriteCDXJ stream through a 32 KiB buffer. Client bounds every response
// body and the sum over a TimeMap's pages (Client.MaxBodyBytes), the pages
// (MaxPages), redirects (MaxRedirects) and time (Timeout and the context).
//
// # Where we differ from MemGator
//
// Mementos of the same second are ordered by URI-M (MemGator keeps arrival
// order, so its answers to the same request differ). Prev and Next step to
// the previous and next distinct second, as Time Travel does (MemGator's
// "prev" may share the closest memento's second). TimeMap pages are
// followed (MemGator reads one page per archive). A URI-M is never cut at a
// ';' inside '<...>'. The writers' layout is otherwise MemGator's, byte for
// byte.
//
// # Client
//
// Client wraps an *http.Client. Every call takes a context, has a timeout,
// bounds body size and redirects, and returns *Error{Op, URI, StatusCode,
// Err}. IsNotFound(err) is true only when the archive answered that it holds
// nothing (404, 410; 406 from a TimeGate); a timeout, 5xx or bad body is a
// failure, which an aggregator must never cache as "no mementos".
package memento
