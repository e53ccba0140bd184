package main

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

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/websocket"
)

const chromiumPath = "/usr/bin/chromium"

// TestBrowser drives the web page in headless Chromium through the
// DevTools protocol: it loads the form, types a URL and a date into it,
// clicks the button, follows the 303 to the result page, reads the
// per-archive table from the DOM, and saves a screenshot. With CI=true a
// missing Chromium fails the test (.ci/setup-extra installs it); otherwise
// it skips.
func TestBrowser(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s is missing (.ci/setup-extra installs Debian's chromium): %v", chromiumPath, err)
		}
		t.Skipf("%s is missing: %v", chromiumPath, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()

	f := newFederation(t)
	in := startFederation(t, f)
	b := startChromium(t, ctx)
	page := b.page(t, ctx)

	// 1. A real page load of the form.
	page.navigate(t, ctx, in.URL+"/")
	var home struct {
		Title    string `json:"title"`
		Form     bool   `json:"form"`
		Archives int    `json:"archives"`
		CSS      string `json:"css"`
	}
	page.eval(t, ctx, `({title: document.title, form: document.querySelector("form#search[action='/search']") !== null,
		archives: document.querySelectorAll("#archives li").length,
		css: getComputedStyle(document.querySelector("header")).backgroundColor})`, &home)
	if d := cmp.Diff(struct {
		Title    string `json:"title"`
		Form     bool   `json:"form"`
		Archives int    `json:"archives"`
		CSS      string `json:"css"`
	}{"mementokit aggregator", true, 3, "rgb(36, 52, 77)"}, home); d != "" {
		t.Errorf("home page (-want +got):\n%s", d)
	}

	// 2. A form submission: type into the fields, click the button.
	page.typeInto(t, ctx, "#url", "example.com/")
	page.typeInto(t, ctx, "#date", "2005-03-01")
	loaded := page.expect("Page.loadEventFired")
	page.click(t, ctx, "#go")
	page.wait(t, ctx, loaded)

	var result struct {
		Path    string     `json:"path"`
		Heading string     `json:"heading"`
		Closest string     `json:"closest"`
		Rows    [][]string `json:"rows"`
		Formats []string   `json:"formats"`
	}
	page.eval(t, ctx, `({path: location.pathname, heading: document.querySelector("#summary h2").textContent,
		closest: document.querySelector("table.nav td.closest a").href,
		rows: Array.from(document.querySelectorAll("tr[data-archive]")).map(r => [r.dataset.archive, r.className]),
		formats: Array.from(document.querySelectorAll("#formats a")).map(a => a.id)})`, &result)
	want := struct {
		Path    string     `json:"path"`
		Heading string     `json:"heading"`
		Closest string     `json:"closest"`
		Rows    [][]string `json:"rows"`
		Formats []string   `json:"formats"`
	}{
		Path:    "/list/20050301000000/http://example.com/",
		Heading: "Mementos of http://example.com/",
		Closest: f.a1.URIM(held, ts(t, "20050301120000")),
		Rows:    [][]string{{"a1", "found"}, {"a2", "found"}, {"a3", "skipped"}},
		Formats: []string{"timemap-link", "timemap-json", "timemap-cdxj", "timegate", "api-json", "memento-redirect"},
	}
	if d := cmp.Diff(want, result); d != "" {
		t.Errorf("result page after the form (-want +got):\n%s", d)
	}

	// 3. A screenshot of the result page.
	var shot struct {
		Data string `json:"data"`
	}
	page.call(t, ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	img, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		t.Fatalf("screenshot is not base64: %v", err)
	}
	path := filepath.Join(t.TempDir(), "list.png")
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

	// 4. The 404 page, loaded by the browser.
	page.navigate(t, ctx, in.URL+"/list/2005/http://nothing.example.net/")
	var missing string
	page.eval(t, ctx, `document.querySelector("#summary h2").textContent`, &missing)
	if missing != "No mementos of http://nothing.example.net/" {
		t.Errorf("404 page heading %q", missing)
	}
}

// browser is a headless Chromium started for one test.
type browser struct {
	port int
}

// startChromium starts Chromium headless with a fresh profile and a
// DevTools port, and stops it (its whole process group) when the test ends.
func startChromium(t *testing.T, ctx context.Context) *browser {
	t.Helper()
	profile := t.TempDir()
	var logs lockedBuffer
	cmd := exec.Command(chromiumPath,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1200,900",
		"--user-data-dir="+profile, "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--remote-allow-origins=http://127.0.0.1", "about:blank")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers are killed with it
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", chromiumPath, err)
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
				return &browser{port: p}
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

// page connects to the browser's first page target.
func (b *browser) page(t *testing.T, ctx context.Context) *cdp {
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
			c, err := dialCDP(ctx, tg.WS)
			if err != nil {
				t.Fatalf("DevTools websocket %s: %v", tg.WS, err)
			}
			t.Cleanup(c.close)
			c.call(t, ctx, "Page.enable", nil, nil)
			return c
		}
	}
	t.Fatalf("no page target among %d", len(targets))
	return nil
}

// cdp is a minimal Chrome DevTools protocol client over one websocket:
// numbered calls with their replies, and events handed to whoever expects
// them.
type cdp struct {
	ws *websocket.Conn

	mu      sync.Mutex
	next    int
	pending map[int]chan cdpMessage
	waiters map[string][]chan json.RawMessage
	err     error
	done    chan struct{}
}

type cdpMessage struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func dialCDP(ctx context.Context, wsURL string) (*cdp, error) {
	cfg, err := websocket.NewConfig(wsURL, "http://127.0.0.1")
	if err != nil {
		return nil, err
	}
	ws, err := cfg.DialContext(ctx)
	if err != nil {
		return nil, err
	}
	c := &cdp{ws: ws, pending: map[int]chan cdpMessage{}, waiters: map[string][]chan json.RawMessage{}, done: make(chan struct{})}
	go c.read()
	return c, nil
}

func (c *cdp) read() {
	defer close(c.done)
	for {
		var m cdpMessage
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
		}
		c.mu.Unlock()
	}
}

func (c *cdp) close() {
	c.ws.Close()
	<-c.done
}

// call sends method with params and decodes the result into out (if not nil).
func (c *cdp) call(t *testing.T, ctx context.Context, method string, params, out any) {
	t.Helper()
	if params == nil {
		params = struct{}{}
	}
	ch := make(chan cdpMessage, 1)
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

// expect registers interest in the next event named method; call it
// before the action that causes the event.
func (c *cdp) expect(method string) chan json.RawMessage {
	ch := make(chan json.RawMessage, 1)
	c.mu.Lock()
	c.waiters[method] = append(c.waiters[method], ch)
	c.mu.Unlock()
	return ch
}

func (c *cdp) wait(t *testing.T, ctx context.Context, ch chan json.RawMessage) json.RawMessage {
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

// navigate loads url and waits for its load event.
func (c *cdp) navigate(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	loaded := c.expect("Page.loadEventFired")
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	c.call(t, ctx, "Page.navigate", map[string]any{"url": url}, &nav)
	if nav.ErrorText != "" {
		t.Fatalf("navigating to %s: %s", url, nav.ErrorText)
	}
	c.wait(t, ctx, loaded)
}

// eval evaluates a JavaScript expression in the page and decodes its value
// (returned by value, so objects come as JSON) into out.
func (c *cdp) eval(t *testing.T, ctx context.Context, expr string, out any) {
	t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	c.call(t, ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r)
	if r.Exception != nil {
		t.Fatalf("evaluating %s: %s", expr, r.Exception.Text)
	}
	if err := json.Unmarshal(r.Result.Value, out); err != nil {
		t.Fatalf("evaluating %s: value %s: %v", expr, r.Result.Value, err)
	}
}

// center returns the viewport coordinates of the middle of the element
// matched by selector.
func (c *cdp) center(t *testing.T, ctx context.Context, selector string) (x, y float64) {
	t.Helper()
	var p struct{ X, Y float64 }
	c.eval(t, ctx, `(() => { const r = document.querySelector(`+strconv.Quote(selector)+`).getBoundingClientRect();
		return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`, &p)
	return p.X, p.Y
}

// click presses and releases the left mouse button over the element.
func (c *cdp) click(t *testing.T, ctx context.Context, selector string) {
	t.Helper()
	x, y := c.center(t, ctx, selector)
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		p := map[string]any{"type": typ, "x": x, "y": y}
		if typ != "mouseMoved" {
			p["button"], p["clickCount"] = "left", 1
		}
		c.call(t, ctx, "Input.dispatchMouseEvent", p, nil)
	}
}

// typeInto clicks the field and types text as keyboard input.
func (c *cdp) typeInto(t *testing.T, ctx context.Context, selector, text string) {
	t.Helper()
	c.click(t, ctx, selector)
	var focused bool
	c.eval(t, ctx, `document.activeElement === document.querySelector(`+strconv.Quote(selector)+`)`, &focused)
	if !focused {
		t.Fatalf("clicking %s did not focus it", selector)
	}
	c.call(t, ctx, "Input.insertText", map[string]any{"text": text}, nil)
	var value string
	c.eval(t, ctx, `document.querySelector(`+strconv.Quote(selector)+`).value`, &value)
	if value != text {
		t.Fatalf("%s holds %q after typing %q", selector, value, text)
	}
}
