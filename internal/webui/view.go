package webui

import (
	"net/http"
	"sort"
	"time"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/memento"
	"github.com/mementokit/mementokit/timestamp"
)

// View is the result of one lookup as the /list page shows it.
type View struct {
	URIR      string
	At        time.Time // the requested datetime
	Count     int       // mementos in the merged list
	Nav       Nav       // around At in the merged list
	FromCache bool      // answered from the cache, without a search
	Updated   time.Time // when the answer's data was searched (zero: unknown)
	Scenario  string    // the cache scenario (aggregator.Answer.Scenario)
	Failures  string    // the Archive-Failures value, "" when none
	Archives  []Row     // one per archive considered, in route order, then the registry's others (not asked: by top-k or the rules)
	Links     Links     // the other formats of this answer
}

// Nav is the navigation around a datetime in a sorted list of mementos;
// a nil field is absent (no earlier or later memento).
type Nav struct {
	First, Prev, Closest, Next, Last *NavMemento
}

// NavMemento is one memento as the navigation of a page shows it (a view
// of a memento.Memento with its count of same-second neighbours).
type NavMemento struct {
	URIM     string
	Datetime time.Time
	Archive  string
	Same     int // other URI-Ms of the same second in the list
}

// Row is one archive's part in the answer.
type Row struct {
	ID, Name string
	// State is "found", "none", "skipped" (by its MementoMap, by the
	// rules or by top-k: Label says which), "dormant" or "failed" (a CSS
	// class too); Label is the phrase shown, Reason the failure's token.
	State, Label, Reason string
	Count                int           // mementos it contributed
	Elapsed              time.Duration // time spent on it (0 when not asked or from the cache)
	Nav                  Nav           // its own mementos around the requested datetime
}

// Links are the aggregator API's URLs for the same URI-R and datetime.
type Links struct {
	TimeMapLink, TimeMapJSON, TimeMapCDXJ, TimeGate, APIJSON, Memento string
}

func (u *UI) links(urir string, at time.Time) Links {
	b, ts := u.o.BaseURL, timestamp.Format(at)
	return Links{
		TimeMapLink: b + "/timemap/link/" + urir,
		TimeMapJSON: b + "/timemap/json/" + urir,
		TimeMapCDXJ: b + "/timemap/cdxj/" + urir,
		TimeGate:    b + "/timegate/" + urir,
		APIJSON:     b + "/api/json/" + ts + "/" + urir,
		Memento:     b + "/memento/" + ts + "/" + urir,
	}
}

// view builds the page model of ans, an answer for the datetime at.
func (u *UI) view(ans *aggregator.Answer, at time.Time) *View {
	ag := u.o.Aggregator
	v := &View{URIR: ans.URIR, At: at, Count: len(ans.Mementos), Nav: navigate(ans.Mementos, at),
		FromCache: ans.Source == aggregator.FromCache, Updated: ans.Updated, Scenario: ans.Scenario,
		Failures: ans.Failures, Links: u.links(ans.URIR, at)}
	byArchive := map[string][]memento.Memento{}
	for _, m := range ans.Mementos {
		byArchive[m.Archive] = append(byArchive[m.Archive], m)
	}
	seen := map[string]bool{}
	add := func(r Row) {
		if a, ok := ag.Archive(r.ID); ok && a.Name != "" {
			r.Name = a.Name
		} else {
			r.Name = r.ID
		}
		if ms := byArchive[r.ID]; len(ms) > 0 {
			r.Count = len(ms)
			r.Nav = navigate(ms, at)
		}
		seen[r.ID] = true
		v.Archives = append(v.Archives, r)
	}
	if ans.Result != nil {
		for _, o := range ans.Result.Outcomes {
			r := Row{ID: o.Archive, Elapsed: o.Elapsed}
			switch o.Status {
			case aggregator.StatusFound:
				r.State, r.Label = "found", "found"
			case aggregator.StatusNone:
				r.State, r.Label = "none", "no mementos"
			case aggregator.StatusSkippedByMap:
				r.State, r.Label = "skipped", "skipped: its MementoMap says it holds nothing"
			case aggregator.StatusDormant:
				r.State, r.Label = "dormant", "not asked: dormant after repeated failures"
			default:
				r.State, r.Label, r.Reason = "failed", "failed: "+o.Reason, o.Reason
			}
			if r.State != "found" && len(byArchive[o.Archive]) > 0 {
				// A stale cached answer served because the search failed.
				r.Label += " (cached mementos shown)"
			}
			add(r)
		}
	} else {
		// From the cache: which archives listed mementos is known; the
		// others are shown with today's routing verdict.
		for _, d := range ag.Route(aggregator.TimeTravelDynamic, ans.URIR) {
			r := Row{ID: d.Archive}
			switch {
			case len(byArchive[d.Archive]) > 0:
				r.State, r.Label = "found", "found (cached)"
			case d.Status == aggregator.StatusSkippedByMap:
				r.State, r.Label = "skipped", "skipped: its MementoMap says it holds nothing"
			case d.Status == aggregator.StatusDormant:
				r.State, r.Label = "dormant", "dormant after repeated failures"
			default:
				r.State, r.Label = "none", "no mementos (cached)"
			}
			add(r)
		}
	}
	// The registry's other archives: left out by -topk or by the rules.
	notAsked := func() []aggregator.Decision {
		if ans.Result != nil {
			return ans.Result.NotAsked
		}
		return ag.NotAsked(aggregator.TimeTravelDynamic, ans.URIR)
	}()
	for _, d := range notAsked {
		r := Row{ID: d.Archive, State: "skipped"}
		if d.Status == aggregator.StatusSkippedByTopK {
			r.Label = "not asked: left out by top-k (only the archives of highest probability are asked)"
		} else {
			r.Label = "not asked: the rules do not list it for this service"
		}
		if len(byArchive[d.Archive]) > 0 {
			r.Label += " (cached mementos shown)"
		}
		add(r)
	}
	// Archives whose mementos came from a refresh by other lists.
	var rest []string
	for id := range byArchive {
		if !seen[id] {
			rest = append(rest, id)
		}
	}
	sort.Strings(rest)
	for _, id := range rest {
		add(Row{ID: id, State: "found", Label: "found (cached)"})
	}
	return v
}

// navigate finds first, prev, closest, next and last around t in ms, which
// is sorted by datetime (then archive rank), as the aggregator's HTTP API
// does (the aggregator package keeps its own version unexported): the
// closest is the nearest memento, a tie between an earlier and a later one
// going to the later (internal/spec/TIMETRAVEL.md §1.2), and among mementos of one second
// the first listed (the best-ranked archive); prev and next are the nearest
// mementos of another second; last is the first of the last second.
func navigate(ms []memento.Memento, t time.Time) Nav {
	if len(ms) == 0 {
		return Nav{}
	}
	start := func(i int) int {
		for i > 0 && ms[i-1].Datetime.Equal(ms[i].Datetime) {
			i--
		}
		return i
	}
	i := sort.Search(len(ms), func(i int) bool { return !ms[i].Datetime.Before(t) })
	var c int
	switch {
	case i == len(ms):
		c = start(len(ms) - 1)
	case i == 0:
		c = 0
	default:
		floor := start(i - 1)
		if t.Sub(ms[floor].Datetime) < ms[i].Datetime.Sub(t) {
			c = floor
		} else {
			c = i
		}
	}
	at := func(i int) *NavMemento {
		m := ms[i]
		n := 0
		for j := i + 1; j < len(ms) && ms[j].Datetime.Equal(m.Datetime); j++ {
			n++
		}
		return &NavMemento{URIM: m.URIM, Datetime: m.Datetime, Archive: m.Archive, Same: n}
	}
	n := Nav{First: at(0), Closest: at(c), Last: at(start(len(ms) - 1))}
	if c > 0 {
		n.Prev = at(start(c - 1))
	}
	j := c
	for j < len(ms) && ms[j].Datetime.Equal(ms[c].Datetime) {
		j++
	}
	if j < len(ms) {
		n.Next = at(j)
	}
	return n
}

// StatusText is the phrase for an HTTP status, for templates.
func (p Page) StatusText() string { return http.StatusText(p.Status) }
