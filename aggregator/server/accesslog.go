package server

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mementokit/mementokit/aggregator"
)

// accessRecord is the content of one access log record ("access", info
// level): one per request, with the aggregator's answer when the request
// reached a lookup.
type accessRecord struct {
	method, target, endpoint string
	status                   int
	bytes                    int64
	duration                 time.Duration
	remote, userAgent        string
	failures                 string // Archive-Failures; "" leaves the attribute out
	ans                      *aggregator.Answer
	acceptDatetime           string // written only with ans
	// archives is the search's aggregator.Result.OutcomeLog (what each
	// archive answered, for aggregator/accesslog's Table 3), written only
	// with ans; "" (an answer without a search) leaves it out.
	archives string
}

// attrs returns the record's attributes, in the order appendJSON writes
// them, for handlers other than jsonHandler.
func (a *accessRecord) attrs(buf []slog.Attr) []slog.Attr {
	attrs := append(buf[:0],
		slog.String("method", a.method), slog.String("target", a.target), slog.String("endpoint", a.endpoint),
		slog.Int("status", a.status), slog.Int64("bytes", a.bytes), slog.Duration("duration", a.duration),
		slog.String("remote", a.remote), slog.String("user_agent", a.userAgent))
	if a.failures != "" {
		attrs = append(attrs, slog.String("archive_failures", a.failures))
	}
	if ans := a.ans; ans != nil {
		attrs = append(attrs, slog.String("urir", ans.URIR), slog.String("scenario", ans.Scenario),
			slog.Bool("from_cache", ans.Source == aggregator.FromCache), slog.Int("mementos", len(ans.Mementos)))
		if a.acceptDatetime != "" {
			attrs = append(attrs, slog.String("accept_datetime", a.acceptDatetime))
		}
		if a.archives != "" {
			attrs = append(attrs, slog.String("archives", a.archives))
		}
	}
	return attrs
}

// appendJSON appends the record as slog.JSONHandler writes it at time t
// (no ReplaceAttr, no source, no groups): the same bytes, without
// building a slog.Record (TestAccessRecordJSON compares the two).
func (a *accessRecord) appendJSON(b []byte, t time.Time) []byte {
	b = append(b, `{"time":"`...)
	b = t.Round(0).AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"access","method":`...)
	b = appendJSONString(b, a.method)
	b = append(b, `,"target":`...)
	b = appendJSONString(b, a.target)
	b = append(b, `,"endpoint":`...)
	b = appendJSONString(b, a.endpoint)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(a.status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, a.bytes, 10)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(a.duration), 10)
	b = append(b, `,"remote":`...)
	b = appendJSONString(b, a.remote)
	b = append(b, `,"user_agent":`...)
	b = appendJSONString(b, a.userAgent)
	if a.failures != "" {
		b = append(b, `,"archive_failures":`...)
		b = appendJSONString(b, a.failures)
	}
	if ans := a.ans; ans != nil {
		b = append(b, `,"urir":`...)
		b = appendJSONString(b, ans.URIR)
		b = append(b, `,"scenario":`...)
		b = appendJSONString(b, ans.Scenario)
		b = append(b, `,"from_cache":`...)
		b = strconv.AppendBool(b, ans.Source == aggregator.FromCache)
		b = append(b, `,"mementos":`...)
		b = strconv.AppendInt(b, int64(len(ans.Mementos)), 10)
		if a.acceptDatetime != "" {
			b = append(b, `,"accept_datetime":`...)
			b = appendJSONString(b, a.acceptDatetime)
		}
		if a.archives != "" {
			b = append(b, `,"archives":`...)
			b = appendJSONString(b, a.archives)
		}
	}
	return append(b, "}\n"...)
}

// appendJSONString appends s as a quoted JSON string escaped as
// slog.JSONHandler escapes it: '"', '\\' and control bytes escaped
// (\n, \r, \t, else \u00XX), invalid UTF-8 as \ufffd, U+2028 and U+2029
// as \u2028 and \u2029; everything else, '<', '>' and '&' included, as
// it is.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonHandler is the slog.JSONHandler of a log written in JSON
// (Config.NewLogger), with a direct path for access records
// (writeAccess). Both write whole records to one lockedWriter, so that
// records of either path never interleave.
type jsonHandler struct {
	*slog.JSONHandler
	w *lockedWriter
}

// WithAttrs implements slog.Handler; the result is a plain
// slog.JSONHandler on the same writer.
func (h *jsonHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.JSONHandler.WithAttrs(attrs)
}

// WithGroup implements slog.Handler, as WithAttrs does.
func (h *jsonHandler) WithGroup(name string) slog.Handler { return h.JSONHandler.WithGroup(name) }

var accessBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// writeAccess adds a to the writer's access records as one info record,
// when the handler takes info records.
func (h *jsonHandler) writeAccess(ctx context.Context, a *accessRecord) {
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	bp := accessBufPool.Get().(*[]byte)
	b := a.appendJSON((*bp)[:0], time.Now())
	h.w.addAccess(b)
	if cap(b) <= 64<<10 {
		*bp = b
		accessBufPool.Put(bp)
	}
}

// Bounds of the access records a lockedWriter holds before writing them:
// at most accessBufBytes (then written at once), for at most
// accessFlushDelay after the first of them.
const (
	accessBufBytes   = 64 << 10
	accessFlushDelay = 50 * time.Millisecond
)

// lockedWriter serializes the writes of whole records to w. Access
// records (addAccess) are gathered and written together, one Write for
// many (at a few thousand requests per second the system call of a
// Write per record is a tenth of a cached answer's CPU): they are
// written when the server has no other request to answer (flushAccess),
// before any other record (so that the order of records is kept), when
// accessBufBytes of them wait, and at the latest accessFlushDelay after
// the first of them. A write error drops the records, as slog's handlers
// drop a record whose write fails.
//
// Two locks: mu guards the records that wait and is held only to add to
// them or take them; wmu is held across each Write to w, so that a
// request adding its record never waits for a system call. Whoever
// writes takes wmu first and then the waiting records, so records reach
// w in the order they were added.
type lockedWriter struct {
	wmu sync.Mutex // held across each Write to w
	w   io.Writer

	mu    sync.Mutex
	buf   []byte      // access records not yet written
	spare []byte      // the buffer last written, reused as buf
	timer *time.Timer // writes buf accessFlushDelay after its first record; nil until needed
}

// Write writes p to the underlying writer, after the access records that
// wait.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.writeWaiting()
	return l.w.Write(p)
}

// addAccess adds the access record p (a whole line) to those waiting:
// written when accessBufBytes wait, else by flushAccess, the next Write
// or the timer.
func (l *lockedWriter) addAccess(p []byte) {
	l.mu.Lock()
	first := len(l.buf) == 0
	l.buf = append(l.buf, p...)
	full := len(l.buf) >= accessBufBytes
	switch {
	case full:
	case first && l.timer == nil:
		l.timer = time.AfterFunc(accessFlushDelay, l.flushAccess)
	case first:
		l.timer.Reset(accessFlushDelay)
	}
	l.mu.Unlock()
	if full {
		l.flushAccess()
	}
}

// flushAccess writes the access records that wait.
func (l *lockedWriter) flushAccess() {
	l.wmu.Lock()
	l.writeWaiting()
	l.wmu.Unlock()
}

// writeWaiting writes the records that wait; the caller holds wmu.
func (l *lockedWriter) writeWaiting() {
	l.mu.Lock()
	b := l.buf
	if len(b) == 0 {
		l.mu.Unlock()
		return
	}
	l.buf, l.spare = l.spare[:0], nil
	l.mu.Unlock()
	_, _ = l.w.Write(b) // as slog's handlers, a failed log write is dropped
	if cap(b) <= 2*accessBufBytes {
		l.mu.Lock()
		l.spare = b[:0]
		l.mu.Unlock()
	}
}

// logAccess writes the access record a to log: added to the records
// that wait when log's handler is the JSON handler of NewLogger
// (flushAccess writes them), else through slog.
func logAccess(ctx context.Context, log *slog.Logger, a *accessRecord) {
	if h, ok := log.Handler().(*jsonHandler); ok {
		h.writeAccess(ctx, a)
		return
	}
	var buf [16]slog.Attr
	log.LogAttrs(ctx, slog.LevelInfo, "access", a.attrs(buf[:0])...)
}

// flushAccess writes the access records that wait in log's writer, if
// log's handler is the JSON handler of NewLogger.
func flushAccess(log *slog.Logger) {
	if h, ok := log.Handler().(*jsonHandler); ok {
		h.w.flushAccess()
	}
}
