package cdxflag_test

import (
	"flag"
	"fmt"

	"github.com/mementokit/mementokit/internal/cdxflag"
)

// A tool's flags choose a domain of a CDX server; Check refuses them when no
// input is a server URL.
func ExampleAdd() {
	fs := flag.NewFlagSet("summarize", flag.ContinueOnError)
	server := cdxflag.Add(fs)
	if err := fs.Parse([]string{"-domain", "Example.COM", "https://index.commoncrawl.org/CC-MAIN-2025-33-index"}); err != nil {
		panic(err)
	}
	o, err := server()
	if err != nil {
		panic(err)
	}
	fmt.Println(o.Scope.URL, o.Scope.Match)
	fmt.Println(cdxflag.Check(o, fs.Args()))
	fmt.Println(cdxflag.Check(o, []string{"local.cdxj"}) != nil)
	// Output:
	// Example.COM domain
	// <nil>
	// true
}
