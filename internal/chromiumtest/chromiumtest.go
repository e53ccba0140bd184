// Package chromiumtest drives a headless Chromium from Go tests through the
// Chrome DevTools protocol (https://chromedevtools.github.io/devtools-protocol/):
// start the browser with a fresh profile, attach to its page, navigate, run
// JavaScript, move and click the mouse, type, and take screenshots.
//
// It is for tests only: every method takes the *testing.T and fails the
// test on a protocol error. The browser is /usr/bin/chromium (Debian's
// package); Require skips the test when it is missing, or fails it when the
// environment variable CI is "true" (.ci/setup-extra installs it there).
package chromiumtest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// Path is where the tests expect Chromium.
const Path = "/usr/bin/chromium"

// Require skips t when Chromium is missing, unless CI is "true": then it
// fails t, so that CI never passes a browser test it did not run.
func Require(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(Path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s is missing (.ci/setup-extra installs Debian's chromium): %v", Path, err)
		}
		t.Skipf("%s is missing: %v", Path, err)
	}
}

// Browser is a headless Chromium started for one test.
type Browser struct {
	port int
}

// Options configures Start; nil means a 1200×900 window.
type Options struct {
	Width, Height int // window size in CSS pixels
}

// Start starts Chromium headless with a fresh profile and a DevTools port
// on 127.0.0.1, with HOME, XDG_CONFIG_HOME and XDG_CACHE_HOME in a
// temporary folder (Chromium writes its crash-report settings and dconf
// cache there, never in the user's home), and stops it (its whole process group) when the test ends.
// ctx bounds the wait for the port.
func Start(t *testing.T, ctx context.Context, opts *Options) *Browser {
	t.Helper()
	w, h := 1200, 900
	if opts != nil && opts.Width > 0 && opts.Height > 0 {
		w, h = opts.Width, opts.Height
	}
	profile := t.TempDir()
	var logs lockedBuffer
	cmd := exec.Command(Path,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars", fmt.Sprintf("--window-size=%d,%d", w, h),
		"--user-data-dir="+profile, "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--remote-allow-origins=http://127.0.0.1", "about:blank")
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers are killed with it
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", Path, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	// Chromium writes its port to DevToolsActivePort in the profile.
	portFile := filepath.Join(profile, "DevToolsActivePort")
	for {
		b, err := os.ReadFile(portFile)
		if err == nil {
			line, _, _ := strings.Cut(string(b), "\n")
			if p, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && p > 0 {
				return &Browser{port: p}
			}
		}
		select {
		case <-exited:
			t.Fatalf("chromium exited before opening its DevTools port:\n%s", logs.String())
		case <-ctx.Done():
			t.Fatalf("chromium gave no DevTools port: %v\n%s", ctx.Err(), logs.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Page connects to the browser's first page target, with the Page domain
// enabled; the connection closes when the test ends.
func (b *Browser) Page(t *testing.T, ctx context.Context) *Page {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("http://127.0.0.1:%d/json/list", b.port), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("DevTools target list: %v", err)
	}
	defer resp.Body.Close()
	var targets []struct {
		Type string `json:"type"`
		WS   string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		t.Fatalf("DevTools target list: %v", err)
	}
	for _, tg := range targets {
		if tg.Type == "page" && tg.WS != "" {
			c, err := dial(ctx, tg.WS)
			if err != nil {
				t.Fatalf("DevTools websocket %s: %v", tg.WS, err)
			}
			t.Cleanup(c.close)
			c.Call(t, ctx, "Page.enable", nil, nil)
			return c
		}
	}
	t.Fatalf("no page target among %d", len(targets))
	return nil
}

// Page is a minimal DevTools protocol client over one websocket: numbered
// calls with their replies, and events handed to whoever expects them.
type Page struct {
	ws *websocket.Conn

	mu       sync.Mutex
	next     int
	pending  map[int]chan message
	waiters  map[string][]chan json.RawMessage
	watchers map[string][]func(json.RawMessage)
	err      error
	done     chan struct{}
}

type message struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func dial(ctx context.Context, wsURL string) (*Page, error) {
	cfg, err := websocket.NewConfig(wsURL, "http://127.0.0.1")
	if err != nil {
		return nil, err
	}
	ws, err := cfg.DialContext(ctx)
	if err != nil {
		return nil, err
	}
	c := &Page{ws: ws, pending: map[int]chan message{}, waiters: map[string][]chan json.RawMessage{},
		watchers: map[string][]func(json.RawMessage){}, done: make(chan struct{})}
	go c.read()
	return c, nil
}

func (c *Page) read() {
	defer close(c.done)
	for {
		var m message
		if err := websocket.JSON.Receive(c.ws, &m); err != nil {
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			return
		}
		c.mu.Lock()
		if m.ID != 0 {
			if ch, ok := c.pending[m.ID]; ok {
				ch <- m
				delete(c.pending, m.ID)
			}
		} else {
			for _, ch := range c.waiters[m.Method] {
				ch <- m.Params
			}
			delete(c.waiters, m.Method)
			for _, fn := range c.watchers[m.Method] {
				fn(m.Params)
			}
		}
		c.mu.Unlock()
	}
}

func (c *Page) close() {
	c.ws.Close()
	<-c.done
}

// Call sends method with params and decodes the result into out (if not nil).
func (c *Page) Call(t *testing.T, ctx context.Context, method string, params, out any) {
	t.Helper()
	if params == nil {
		params = struct{}{}
	}
	ch := make(chan message, 1)
	c.mu.Lock()
	c.next++
	id := c.next
	c.pending[id] = ch
	c.mu.Unlock()
	if err := websocket.JSON.Send(c.ws, map[string]any{"id": id, "method": method, "params": params}); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			t.Fatalf("%s: DevTools error %d: %s", method, m.Error.Code, m.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				t.Fatalf("%s: decoding the result: %v", method, err)
			}
		}
	case <-c.done:
		t.Fatalf("%s: connection closed: %v", method, c.err)
	case <-ctx.Done():
		t.Fatalf("%s: %v", method, ctx.Err())
	}
}

// Expect registers interest in the next event named method; call it
// before the action that causes the event, then Wait.
func (c *Page) Expect(method string) chan json.RawMessage {
	ch := make(chan json.RawMessage, 1)
	c.mu.Lock()
	c.waiters[method] = append(c.waiters[method], ch)
	c.mu.Unlock()
	return ch
}

// Watch calls fn with the parameters of every later event named method,
// from the connection's reading goroutine (fn must not call the Page).
func (c *Page) Watch(method string, fn func(params json.RawMessage)) {
	c.mu.Lock()
	c.watchers[method] = append(c.watchers[method], fn)
	c.mu.Unlock()
}

// Wait returns the parameters of the event ch was registered for.
func (c *Page) Wait(t *testing.T, ctx context.Context, ch chan json.RawMessage) json.RawMessage {
	t.Helper()
	select {
	case p := <-ch:
		return p
	case <-c.done:
		t.Fatalf("waiting for an event: connection closed: %v", c.err)
	case <-ctx.Done():
		t.Fatalf("waiting for an event: %v", ctx.Err())
	}
	return nil
}

// Navigate loads url and waits for its load event.
func (c *Page) Navigate(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	loaded := c.Expect("Page.loadEventFired")
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	c.Call(t, ctx, "Page.navigate", map[string]any{"url": url}, &nav)
	if nav.ErrorText != "" {
		t.Fatalf("navigating to %s: %s", url, nav.ErrorText)
	}
	c.Wait(t, ctx, loaded)
}

// Eval evaluates a JavaScript expression in the page (awaiting it when it
// is a promise) and decodes its value (returned by value, so objects come as
// JSON) into out. A thrown exception fails the test.
func (c *Page) Eval(t *testing.T, ctx context.Context, expr string, out any) {
	t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	c.Call(t, ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if r.Exception != nil {
		t.Fatalf("evaluating %s: %s %s", expr, r.Exception.Text, r.Exception.Exception.Description)
	}
	if err := json.Unmarshal(r.Result.Value, out); err != nil {
		t.Fatalf("evaluating %s: value %s: %v", expr, r.Result.Value, err)
	}
}

// WaitFor evaluates the JavaScript condition every 50 ms until it is true,
// failing the test when ctx ends first.
func (c *Page) WaitFor(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	for {
		var ok bool
		c.Eval(t, ctx, "!!("+cond+")", &ok)
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", cond, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Center returns the viewport coordinates of the middle of the element
// matched by selector.
func (c *Page) Center(t *testing.T, ctx context.Context, selector string) (x, y float64) {
	t.Helper()
	var p struct{ X, Y float64 }
	c.Eval(t, ctx, `(() => { const r = document.querySelector(`+strconv.Quote(selector)+`).getBoundingClientRect();
		return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`, &p)
	return p.X, p.Y
}

// MoveMouse moves the mouse pointer to viewport coordinates x, y.
func (c *Page) MoveMouse(t *testing.T, ctx context.Context, x, y float64) {
	t.Helper()
	c.Call(t, ctx, "Input.dispatchMouseEvent", map[string]any{"type": "mouseMoved", "x": x, "y": y}, nil)
}

// Click scrolls the element into view, then presses and releases the left
// mouse button over it.
func (c *Page) Click(t *testing.T, ctx context.Context, selector string) {
	t.Helper()
	var ok bool
	c.Eval(t, ctx, `(document.querySelector(`+strconv.Quote(selector)+`).scrollIntoView({block: "center"}), true)`, &ok)
	x, y := c.Center(t, ctx, selector)
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		p := map[string]any{"type": typ, "x": x, "y": y}
		if typ != "mouseMoved" {
			p["button"], p["clickCount"] = "left", 1
		}
		c.Call(t, ctx, "Input.dispatchMouseEvent", p, nil)
	}
}

// TypeInto clicks the field and types text as keyboard input.
func (c *Page) TypeInto(t *testing.T, ctx context.Context, selector, text string) {
	t.Helper()
	c.Click(t, ctx, selector)
	var focused bool
	c.Eval(t, ctx, `document.activeElement === document.querySelector(`+strconv.Quote(selector)+`)`, &focused)
	if !focused {
		t.Fatalf("clicking %s did not focus it", selector)
	}
	c.Call(t, ctx, "Input.insertText", map[string]any{"text": text}, nil)
	var value string
	c.Eval(t, ctx, `document.querySelector(`+strconv.Quote(selector)+`).value`, &value)
	if value != text {
		t.Fatalf("%s holds %q after typing %q", selector, value, text)
	}
}

// Screenshot captures the page as a PNG (the whole page when full is set,
// else the viewport), writes it to path, and fails the test unless it
// decodes as a PNG of at least 100×100 pixels.
func (c *Page) Screenshot(t *testing.T, ctx context.Context, path string, full bool) {
	t.Helper()
	var shot struct {
		Data string `json:"data"`
	}
	c.Call(t, ctx, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": full}, &shot)
	img, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		t.Fatalf("screenshot is not base64: %v", err)
	}
	if err := os.WriteFile(path, img, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		t.Fatalf("screenshot %s (%d bytes) is not a PNG: %v", path, len(img), err)
	}
	if cfg.Width < 100 || cfg.Height < 100 || len(img) < 2000 {
		t.Errorf("screenshot %s is %dx%d, %d bytes: too small to show the page", path, cfg.Width, cfg.Height, len(img))
	}
	t.Logf("screenshot: %s, %dx%d, %d bytes", path, cfg.Width, cfg.Height, len(img))
}

// lockedBuffer collects the browser's output from its two pipes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
