package server

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/archivetest"
	"github.com/mementokit/mementokit/internal/cli"
)

// TestSearchOnce: one search over a local archive, as the command line
// runs it: the TimeMap and the description on stdout (no links to a
// server), and each error's cause and exit status: a bad argument
// (ErrBadArgument, 2, no archive asked), no memento (ErrNoMemento, 1, the
// headline) and every archive failed (ErrAllFailed, ExitAllFailed). The
// Config given is not modified.
func TestSearchOnce(t *testing.T) {
	a := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{held: {
		time.Date(2005, 3, 1, 12, 0, 0, 0, time.UTC), time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)}}})
	t.Cleanup(a.Close)
	down := archivetest.New(archivetest.Config{})
	down.Close()
	dir := t.TempDir()
	list := writeFile(t, dir, "archives.json", []byte(`[{"id": "local", "timemap": "`+a.TimeMapPrefix()+`", "timegate": "`+a.TimeGatePrefix()+`"}]`))
	downList := writeFile(t, dir, "down.json", []byte(`[{"id": "down.local", "timemap": "`+down.TimeMapPrefix()+`", "timegate": "`+down.TimeGatePrefix()+`"}]`))
	search := func(archives, format string, args ...string) (string, string, error) {
		c := DefaultConfig()
		c.Archives, c.Cache, c.Workers, c.LogLevel = archives, "none", 0, "warn"
		var out, errb bytes.Buffer
		err := SearchOnce(context.Background(), &c, format, args, &out, &errb)
		if c.Logger != nil || c.NoAPILinks {
			t.Errorf("%q: SearchOnce changed its Config", args)
		}
		return out.String(), errb.String(), err
	}
	out, errs, err := search(list, "", held)
	if err != nil || !strings.Contains(out, a.URL+"/web/20050301120000/"+held) || !strings.Contains(out, `rel="last memento"`) ||
		strings.Contains(out, "timegate") || errs != "" {
		t.Errorf("TimeMap: %v, stderr %q, stdout:\n%s", err, errs, out)
	}
	out, _, err = search(list, "JSON", held, "2009")
	if err != nil || !strings.Contains(out, `"closest": {`) || !strings.Contains(out, `"datetime": "2010-01-01T00:00:00Z"`) {
		t.Errorf("description: %v\n%s", err, out)
	}
	asked := len(a.Requests())
	for _, args := range [][]string{{}, {held, "2010", "x"}, {""}, {" " + held}, {held + "\n"}, {held, "201013"}} {
		out, _, err := search(list, "link", args...)
		var u cli.Usage
		if !errors.Is(err, ErrBadArgument) || !errors.As(err, &u) || cli.Status("aggregator", err, &bytes.Buffer{}) != 2 || out != "" {
			t.Errorf("%q: %v, stdout %q; want ErrBadArgument, exit 2, nothing", args, err, out)
		}
	}
	if _, _, err := search(list, "xml", held); !errors.Is(err, ErrBadArgument) {
		t.Errorf("format xml: %v, want ErrBadArgument", err)
	}
	if n := len(a.Requests()); n != asked {
		t.Errorf("refused arguments asked the archive %d times", n-asked)
	}
	out, _, err = search(list, "link", "http://nothing.example/")
	if !errors.Is(err, ErrNoMemento) || cli.Status("aggregator", err, &bytes.Buffer{}) != 1 || out != "" ||
		!strings.HasPrefix(err.Error(), "No mementos found for http://nothing.example/") {
		t.Errorf("not found: %v, stdout %q; want ErrNoMemento, exit 1, the headline", err, out)
	}
	out, _, err = search(downList, "link", held)
	if !errors.Is(err, ErrAllFailed) || cli.Status("aggregator", err, &bytes.Buffer{}) != ExitAllFailed || out != "" ||
		!strings.Contains(err.Error(), "down.local=") {
		t.Errorf("all failed: %v, stdout %q; want ErrAllFailed, exit %d, naming down.local", err, out, ExitAllFailed)
	}
}
