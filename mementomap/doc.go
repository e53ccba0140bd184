// Package mementomap builds, compacts, looks up, evaluates and merges
// MementoMaps: small sorted UKVS files that say what a web archive holds,
// so that a Memento aggregator can skip archives that certainly hold
// nothing for a URI (Alam, Weigle, Nelson, Melo, Bicho, Gomes, "MementoMap
// Framework for Flexible and Adaptive Web Archive Profiling", JCDL 2019;
// the project's restatement and decisions are in internal/spec/MEMENTOMAP.md).
//
// # Keys and frequencies
//
// A data line is "KEY FREQUENCY". KEY is an HxPx key (a SURT without its
// query, "com,example)/a/b") or a wildcard key: "com,example)/a/*" covers
// "com,example)/a" and everything below it, "com,example,*" covers the host
// and all its subdomains, "com,*" a whole TLD and "*" everything. FREQUENCY
// is "[URI-M count]/[URI-R count]" with optional "+ - ~" bounds
// ([ukvs.Frequency]); "0" means the archive holds nothing under that key,
// even when a wildcard above it says otherwise. Lines are in byte-wise order
// (LC_ALL=C sort), after "!" header lines (!context, !id, !fields, !meta).
//
// # Building
//
// [Build] reads any number of CDX/CDXJ indexes, sorted or not (package
// cdxj), and writes the baseline map: one line per HxPx key with exact
// URI-M and URI-R counts. The URI-M count is the number of index records
// under the key (after the filters), as the paper's reference tool counts
// CDXJ lines: a record repeating a capture (same SURT, timestamp and URL)
// counts again, although a TimeMap lists that memento once. Every map of
// the module counts this way, the one an archive built with
// internal/archiveserver publishes included. An external sort (sorted runs spilled to disk,
// k-way merged) bounds its memory whatever the input size. Index keys made
// by another canonicalizer than the one lookups use would be false
// negatives waiting to happen, so Build checks every record's key against
// the surt.Canonicalize of its URL and uses the canonical key where they
// differ (counted in the map's !meta rekeyed_lines), or re-keys every
// record from its URL under BuildOptions.Rekey. [Map.Lookup] makes the
// same key of a SURT it is given (an index's key, a NUL or control byte
// left unescaped), so that every URI-R a build took is found.
//
// # Compaction
//
// [Compact] rolls dense subtrees up into wildcard keys in one streaming
// pass (the paper's Figure 3) with the power-law cutoffs of its Table 8,
// weighted by the host and path compaction factors W_h and W_p. Its memory
// is the open nodes of the two trails plus a bounded buffer of output that
// may still be rolled up (spilled to disk beyond a limit). Totals are
// conserved and a compacted map compacts again, so the paper's chain of 36
// maps over the weight pairs {4, 2, 1, 0.5, 0.25, 0} is a loop of Compact
// calls. Public suffixes are never rolled up ("uk,co,*" would claim every
// British company) unless the reference tool's behaviour is asked for
// ([CompactOptions.Reference]), whose output then equals the tool's.
//
// # Lookup
//
// [Open] memory-maps a map in constant time; [Map.LookupSURT] (and
// [Map.Lookup] for URLs, [Map.LookupAll] for a stream) tries the keys of
// [AppendLookupKeys], most specific first, and the first present decides.
// The first key costs a binary search; the lines around its place bound the
// others, so an unknown host costs one search. After a few thousand lookups
// a Map builds a sparse in-memory index (1–2 % of the file) so that a
// search touches one block of the map; the first search in each block then
// builds a table of that block's lines (8 bytes per line, at most
// 256 MiB per Map), so that later searches bisect the table and read one
// line of the mapped file, or none when the key is absent. A Map is safe
// for concurrent use.
// A binary search in a map out of order can miss a line the file holds,
// so a Map checks its order once ([Map.CheckOrder]): a map of at most
// [SyncOrderCheckBytes] before its first lookup answers, a larger one in
// the background while each lookup checks the order of the lines it reads.
// A lookup never answers absent for a held key without an error, but for
// one case stated at Map.CheckOrder (a line far from its place in a large
// map whose check has not ended); on a map found out of order every lookup
// fails with ukvs.ErrOutOfOrder, naming the file and the line. Of
// duplicate keys, the first line decides; [Map.Check] (ukvs.Check, the
// rule of the command's check, which its lookup applies first) refuses
// those too. A byte order mark is skipped; lone CR line ends are
// refused ([ErrLoneCR]).
//
// A map may declare a time key column in !fields ([TimeKeyDatetime]):
// [Map.LookupAt] then answers for a URI at a datetime, and lookups without
// one take each key's all-time line. An observed map ([TimeKeyObserved])
// records what an archive answered an aggregator, with when; [Map.LookupObserved] trusts its negatives for a limited time only.
// [Map.Totals] counts a wildcard line once, not on top of the lines it
// covers.
//
// Zero false negatives is the contract: a map may say "maybe" wrongly,
// never "absent" wrongly. Compaction only adds wildcards that the lookup
// order tries, drops (never rolls up) subtrees that hold nothing, and
// [Merge] keeps an exclusion line only when both maps agree.
//
// # Evaluation
//
// [LoadTruth] and [Evaluate] compute the paper's measures for a map against
// its index and a list of lookup URIs: relative cost (map lines per URI-R),
// accuracy, precision and recall. Recall below 1 is a bug, and
// [Eval.Check] says so.
//
// # Profiling an archive
//
// [Profile] computes the paper's analysis of an archive's holdings
// ([ArchiveProfile]: Tables 1, 2 and 4 to 8, Figures 5 to 9) from the same
// inputs and filters as [Build], in one external sort and one streaming
// pass; [FitCutoffs] fits the compaction power laws a·(i+1)^(−k) to its
// mean children per depth, and [CompactOptions.WithFit] compacts with them.
//
// # The reference tool's bugs, and what this package does instead
//
// The paper's tool (oduwsdl/MementoMap 0.1.0b2) cannot find the first line
// of a map, crashes on keys after the last line, re-orders keys when it cuts
// queries without re-sorting, reuses a stale output offset after a roll-up
// (truncated, disordered output when a subdomain follows a host whose paths
// rolled up), drops keys without a comma ("localhost", IPv6 hosts), drops
// frequencies other than plain integers and header lines, rolls whole
// public suffixes up, and counts a path node twice when byte order splits
// it ("/news", "/news-2019", "/news/a"). Each of these has a test here.
//
// The command examples/mementomap wraps all of this (build, compact,
// lookup, eval, merge, check, stats); internal/bench/mementomap measures it
// and reproduces the paper's Table 9 and Figure 10.
package mementomap
