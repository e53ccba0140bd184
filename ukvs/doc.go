// Package ukvs reads and writes UKVS, the Unified Key Value Store text
// format in which a MementoMap says what a web archive holds.
//
// # The format
//
// UKVS is defined by the ORS draft ukvs.md (github.com/oduwsdl/ORS) and
// is the format of the MementoMap in Figure 2 of Alam, Weigle, Nelson et
// al., "MementoMap Framework for Flexible and Adaptive Web Archive
// Profiling" (JCDL 2019). A document is a few header lines, each "!" + a
// name + single-line JSON, followed by data lines, as in this map in the
// manner of that figure:
//
//	!context ["http://oduwsdl.github.io/contexts/ukvs"]
//	!id {uri: "http://archive.example.org/"}
//	!fields {keys: ["surt"], values: ["frequency"]}
//	!meta {type: "MementoMap", name: "A Test Web Archive", year: 1996}
//	* 54321/20000
//	com,* 10000+
//	org,arxiv)/ 100
//	org,arxiv)/* 2500~/900
//	org,arxiv)/pdf/* 0
//	uk,co,bbc)/images/* 300+/20-
//
// The draft's examples write JSON object keys without quotes; [Reader]
// accepts them ([RelaxedJSON]). !fields names the key columns and the value
// columns of every data line, in order; without it a document has the
// MementoMap layout, one "surt" key and one "frequency" value
// ([DefaultFields]). Columns are separated by white space, a column holding
// white space is double-quoted, "-" stands for an unknown value, and a line
// may end with a single-line JSON object that adds anything else.
//
// # Frequencies and time breakdowns
//
// The "frequency" value is "[URI-M count]/[URI-R count]", both optional,
// each optionally suffixed '+' (at least), '-' (at most) or '~' (about):
// see [Frequency]. "0" means the archive holds nothing for the key (an
// exclusion line that overrides a wildcard above it) and is distinct from
// an unknown "-" or "/". [Frequency.Add] sums the frequencies of sibling
// keys when compaction rolls them up.
//
// A "datetime" value is a prefix of a 14-digit datetime or a range of two
// ("2014", "201603", "2010:2012", ":2009", "201603:"): see [DatetimeValue].
//
// # Order
//
// A MementoMap is looked up by binary search, so its data lines must be in
// byte-wise key order, the order of `LC_ALL=C sort`: "com,example)/" before
// "com,example)/a-b" before "com,example)/a/b" before "com,example,www)/"
// before "com,example-shop)/". [Writer] refuses a line out of that order or
// repeating the previous key, and [Check] reports the first such line of a
// file, so that a lookup never silently answers "absent" on an unsorted map.
//
// # Reading fast
//
// [Reader] follows encoding/csv: settings as fields, one [Record] per
// [Reader.Read] (or the [Reader.All] iterator), a *[ParseError] with the
// line number for a bad line after which reading can go on. Records point
// into the reader's buffer, so the steady state allocates nothing; memory
// is bounded by the longest line (MaxLineLength, 16 MiB by default).
package ukvs
