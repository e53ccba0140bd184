package summarychart_test

import (
	"fmt"
	"strings"

	"github.com/mementokit/mementokit/internal/summarychart"
	"github.com/mementokit/mementokit/summary"
)

func ExampleFirstLetters() {
	in := `archive.org {"2013": {"n_total": 3}}
bnl.lu {"2013": {"n_total": 1}}
bbc.co.uk {"2014": {"n_total": 2}}
192.0.2.1 {"2014": {"n_total": 2}}
`
	o, err := summary.ReadOverview(strings.NewReader(in), "sample")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := summarychart.FirstLetters([]*summary.Overview{o})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Title)
	fmt.Println(c.Categories[:3], c.Series[0].Values[:3])
	fmt.Println(c.Note)
	// Output:
	// Registrable domains by first letter — sample
	// [a b c] [1 2 0]
	// Keys that are no domain name (IP addresses, dns: and other pseudo-URIs) left out: sample: 1
}
