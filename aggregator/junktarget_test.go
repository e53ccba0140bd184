package aggregator

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// TestTimeMapJunkTarget: a TimeMap page whose link target holds '"',
// '<', CR/LF and spaces (a script injected into the URI-M) is a bad body
// at that byte, as other malformed link-format is, never a URI-M made
// up from the junk; the links before it are kept. The body is the one a
// hostile upstream sent, over a real 127.0.0.1 server.
func TestTimeMapJunkTarget(t *testing.T) {
	const body = "<http://example.com/>; rel=\"original\",\n" +
		"<http://127.0.0.1/m/\"><script>alert(1)</script>\r\nX-Evil: 1>; rel=\"memento\"; datetime=\"Wed, 01 Jan 2020 00:00:00 GMT\",\n" +
		"<javascript:alert(1)>; rel=\"memento\"; datetime=\"Fri, 01 Jan 2021 00:00:00 GMT\"\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/link-format")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	a := &Archive{ID: "xss", TimeMap: srv.URL + "/tm/"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ms, _, err := (&HTTPUpstream{}).TimeMap(ctx, a, "http://example.com/")
	if r := reasonOf(err); r != ReasonBadBody {
		t.Fatalf("reason %q (%v), want %q", r, err, ReasonBadBody)
	}
	var pe *memento.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, memento.ErrTargetByte) {
		t.Fatalf("error %v, want a *memento.ParseError of ErrTargetByte", err)
	}
	if want := int64(strings.Index(body, `"><script`)); pe.Offset != want {
		t.Errorf("error at byte %d, want %d (the '\"' in the target): %v", pe.Offset, want, err)
	}
	if len(ms) != 0 {
		t.Errorf("mementos %v, want none (no well-formed memento link before the junk)", ms)
	}
}
