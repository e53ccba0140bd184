package demo

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mementokit/mementokit/aggregator"
)

// report prints the archives, one row per lookup (at most cfg.Rows when
// cfg.Rows >= 0) and the totals.
func report(out io.Writer, cfg *Config, archives []*archive, stats []aggregator.Stats, lookups []*lookup, sum Summary) {
	fmt.Fprintln(out, "Archives (127.0.0.1, each serving its index and its compacted MementoMap at /.well-known/mementomap):")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tname\tURI-Rs\tmementos\tmap lines\tmap bytes\tsent (routed)\tsaved by map\tbase")
	for i, a := range archives {
		lines, _ := a.srv.Map().DataLines()
		var sent, saved int64
		if i < len(stats) {
			sent, saved = stats[i].Sent, stats[i].Saved
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", a.spec.id, a.spec.name, a.load.URIRs, a.load.Captures,
			lines, len(a.srv.MementoMap()), sent, saved, a.base)
	}
	tw.Flush()

	fmt.Fprintf(out, "\nLookups through the aggregator with routing on (GET /timemap/link/{URI-R}); \"all\" = mementos when every archive is asked:\n")
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tdata\tURI-R\theld by\tasked\tskipped\tanswering\tmementos\tall\tstatus")
	shown := 0
	for i, l := range lookups {
		if cfg.Rows >= 0 && shown >= cfg.Rows {
			fmt.Fprintf(tw, "...\t\t(%d more rows; -rows -1 prints all)\t\t\t\t\t\t\t\n", len(lookups)-shown)
			break
		}
		shown++
		u := l.url
		if len(u) > 70 {
			u = u[:67] + "..."
		}
		status := fmt.Sprint(l.routed.status)
		if l.routed.err != nil {
			status = "ERROR " + l.routed.err.Error()
		}
		data := "generated"
		if l.real {
			data = "real"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t%s\n", i+1, data, u, ids(archives, l.holders),
			ids(archives, l.routed.asked), len(archives)-len(l.routed.asked), ids(archives, l.routed.answering),
			len(l.routed.urims), len(l.all.urims), status)
	}
	tw.Flush()

	fmt.Fprintf(out, "\nTotals over %d URI-Rs (%d held by some archive, %d by none), %d archives:\n",
		sum.Held+sum.Absent, sum.Held, sum.Absent, len(archives))
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "upstream requests, every archive asked\t%d\n", sum.RequestsAll)
	fmt.Fprintf(tw, "upstream requests, routing by MementoMaps\t%d\n", sum.RequestsRouted)
	fmt.Fprintf(tw, "requests saved\t%.1f %%\n", 100*sum.Saved)
	fmt.Fprintf(tw, "mementos found, every archive asked\t%d (the indexes hold %d)\n", sum.MementosAll, sum.MementosTruth)
	fmt.Fprintf(tw, "mementos found, routing\t%d\n", sum.MementosRouted)
	fmt.Fprintf(tw, "recall of routing\t%.3f\n", sum.Recall)
	fmt.Fprintf(tw, "failed lookups\t%d\n", sum.Failures)
	fmt.Fprintf(tw, "elapsed\t%v\n", sum.Elapsed.Round(10_000_000))
	tw.Flush()
}
