// Package pipeline builds MementoMaps (baseline and compacted) and
// cdx-summarize summaries of whole web archive indexes as Apache Beam
// pipelines (the Beam Go SDK), so that an index of billions of lines is
// built on a Flink, Spark or Dataflow cluster, or locally on Beam's prism
// runner, with output byte-identical to the single-process build of
// packages mementomap and summary.
//
// # Shape
//
// The unit of distributed work is coarse: one part of one input (a byte
// range of a plain sorted CDX/CDXJ file, a run of blocks of a ZipNum
// cluster, a whole gzip file; see cdxj.Plan), never a line. Per-line
// Beam elements cost far more CPU than the build itself and prism holds
// every PCollection in memory; here a PCollection element is a small JSON
// description of a part or of a finished shard file.
//
//  1. The launcher ([NewPlan]) expands the inputs (globs, cluster .idx
//     files or folders, Common Crawl's cluster.idx layout, CDX server
//     URLs), opens each and cuts it with cdxj.Plan into parts of about
//     [Config.ShardBytes] bytes as stored, only between lines whose SURT
//     authorities differ.
//  2. One element per part: mementomap.BuildPart writes a partial map and,
//     when a summary is asked for, summary.SummarizePart writes a partial
//     summary, each a shard file under the plan's temporary folder.
//  3. The partial maps are gathered and merged in key order into the map
//     with its headers (mementomap.Concat: the parts of files cut inside
//     one SURT host share keys, whose captures are summed and whose
//     URI-Rs are counted once each; for a key that holds the URI-R of a
//     record whose index key the build replaced by the canonical SURT of
//     its URL, which may sort in any part, Concat reads again the parts
//     whose key ranges reach that key and counts its URI-Rs exactly).
//  4. Compaction: the map is cut at TLD and registrable-domain boundaries
//     where compacting the pieces one by one gives the bytes of one pass
//     (mementomap.CompactCuts; public suffixes are never split from their
//     domains' fate), one element per piece runs mementomap.Compact, and
//     the pieces are concatenated.
//  5. The partial summaries are combined exactly (summary.Combiner: the
//     counters sum).
//  6. A last step puts the finished outputs in place, all of them or none:
//     a file already at an output path is moved aside first, and if a
//     rename fails the outputs already renamed are removed and the files
//     moved aside put back.
//
// # Errors
//
// A step that fails leaves its error's message in the temporary folder;
// [Run] returns the first of them in pipeline order as a [*Failure], one
// line naming the input file and the part (and the line, for a bad or
// unsorted line) or the output, instead of the runner's report of the
// failed bundle. On error none of the outputs is written.
//
// # Inputs must be sorted
//
// The parts of a plan are merged as parts of one sorted index: each input
// must be sorted by the module's one rule (cdxj.SortKey: byte-wise by key,
// then timestamp, as LC_ALL=C sort and archives write their indexes), of
// which a map depends on, and the pipeline checks, the keys' order alone
// (cdxj.KeyOrder: the captures of one key may come in any order of their
// timestamps), and the inputs, in the order given, must follow one
// another (the files of one sorted index cut in pieces, as Common Crawl's
// cdx-00000 ... cdx-00299 are). The files may be cut anywhere, inside one
// SURT host, even between two captures of one URI-R: the partial maps of
// their parts then share keys and their key ranges interleave (a map key
// drops the query, so "pt,x)/a?id=1" has the key "pt,x)/a", which sorts
// before the key of an earlier line "pt,x)/a5/b"), and mementomap.Concat
// merges them, each key written once, its captures summed and its URI-Rs
// counted once each, as the single-process build counts them. Both
// conditions are checked, whatever the shard size: inside a part,
// mementomap.BuildPart fails on a key that sorts before the key of an
// earlier line (cdxj.ErrUnsorted, naming the file and the line;
// -skip-bad does not skip it), and between parts, mementomap.Concat fails
// on a part whose first key sorts before the last key of the part before
// it (mementomap.ErrPartsOverlap, naming the two keys and the inputs'
// parts). The pipeline then fails and no output is written. Sort such
// inputs first (sort(1) with LC_ALL=C, or the single-process mementomap
// build, which sorts) or build each on its own and merge the maps with
// mementomap.Merge. The same holds under BuildSpec.Rekey, whose keys are
// remade from the URLs: the inputs must then be in the order of those
// keys. The inputs are taken in the order of
// Config.Inputs, a glob's matches in byte-wise order of their names, and
// nothing is reordered. A record whose index key differs from the
// canonical SURT of its URL is exempt: the build replaces its key, which
// may sort anywhere, and mementomap.Concat still counts its URI-R once.
//
// # Files
//
// Workers read the inputs by the names the launcher planned with, and
// write their shards to [Config.TempDir], so on a cluster both must be
// paths every worker sees (a shared or mounted file system) or, for the
// inputs, URLs. The outputs are written in the temporary folder and
// renamed into place at the end, so TempDir must be on the outputs' file
// system; by default it is a new folder beside the map output.
package pipeline
