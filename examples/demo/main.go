// Command demo runs the project's main job offline, on the real index files
// the project ships (internal/sampledata) plus generated ones
// (internal/cdxgen): three Memento archives on 127.0.0.1 with different,
// overlapping holdings, each publishing its compacted MementoMap; an
// aggregator that routes by those maps; and, for comparison, the same
// aggregator asking every archive. It looks up every URI-R any archive holds
// and as many that none holds, prints one row per URI-R (archives asked,
// skipped, answering; mementos found) and the totals: upstream requests with
// and without routing, the share saved, and the recall of routing (1.0: a
// MementoMap never hides a memento).
//
//	go run ./examples/demo
//	go run ./examples/demo -gen 2000 -rows 20
package main

import (
	"github.com/mementokit/mementokit/internal/cli"
)

func main() { cli.Main("demo", run) }
