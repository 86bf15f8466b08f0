package benchhttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uds-migrate/uds-migrate/bench"
)

// Target is one transport's way in: the URL to request and, for a Unix
// socket, the socket file every connection dials instead of the URL's host.
type Target struct {
	// URL is requested as is: "http://127.0.0.1:8080/health". With Socket
	// set only its path, query and host header matter.
	URL string
	// Socket is the socket file to dial; "" dials the URL's host over TCP.
	Socket string
	// WantTransport, when set, is the TransportHeader value every response
	// must carry ("tcp" or "unix"): proof that the proxy reached the
	// backend the way this target claims.
	WantTransport string
	// WantBody, when set, is the exact body every response must have.
	WantBody string
}

// Load is a bench.Client that sends HTTP GETs from Concurrency goroutines,
// each on its own keep-alive connection to the target (the transport under
// test is the one behind the target, or the target itself in direct mode;
// reusing the client's connection keeps its set-up out of the figures).
//
// Every response must be 200 (and match WantTransport and WantBody): a run
// fails on the first that is not, rather than time error pages.
type Load struct {
	Targets map[bench.Transport]Target
	// Concurrency is the number of request goroutines (≥ 1).
	Concurrency int
	// Requests, when > 0, makes each run send exactly that many requests
	// (ab -n), stopping early only at Run's time bound; 0 runs for the
	// whole duration Run is given.
	Requests int
	// Timeout bounds one request; 0 means 10 s.
	Timeout time.Duration
	// OnError, when set, adds context to a failed run's error (the proxy's
	// error log).
	OnError func() string

	mu      sync.Mutex
	clients map[bench.Transport]*http.Client
}

// Name is "Go net/http".
func (l *Load) Name() string { return "Go net/http" }

// Close drops the idle keep-alive connections.
func (l *Load) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.clients {
		c.CloseIdleConnections()
	}
}

func (l *Load) client(t bench.Transport) (*http.Client, Target, error) {
	tg, ok := l.Targets[t]
	if !ok {
		return nil, tg, fmt.Errorf("no %s target", t)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.clients[t]; ok {
		return c, tg, nil
	}
	tr := &http.Transport{
		MaxIdleConns:        l.Concurrency,
		MaxIdleConnsPerHost: l.Concurrency,
		MaxConnsPerHost:     l.Concurrency,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
		// No proxy from the environment: HTTP_PROXY must not route a
		// loopback benchmark elsewhere.
		Proxy: nil,
	}
	d := &net.Dialer{Timeout: 5 * time.Second}
	if tg.Socket != "" {
		path := tg.Socket
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", path)
		}
	} else {
		tr.DialContext = d.DialContext
	}
	timeout := l.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	c := &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if l.clients == nil {
		l.clients = map[bench.Transport]*http.Client{}
	}
	l.clients[t] = c
	return c, tg, nil
}

// Run sends requests over transport t: for d, or (Requests > 0) until
// Requests are done or d has passed, whichever comes first. Requests in
// flight at the deadline finish and count; Elapsed runs from the first
// request's start to the last one's end. Latencies hold every completed
// request's round trip, body read included. The error names the first
// request that failed and why; ctx cancellation stops the run with ctx's
// error.
func (l *Load) Run(ctx context.Context, t bench.Transport, d time.Duration) (bench.Sample, error) {
	if l.Concurrency < 1 {
		return bench.Sample{}, fmt.Errorf("concurrency %d: need at least 1", l.Concurrency)
	}
	c, tg, err := l.client(t)
	if err != nil {
		return bench.Sample{}, err
	}
	req0, err := http.NewRequest(http.MethodGet, tg.URL, nil)
	if err != nil {
		return bench.Sample{}, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	var (
		issued   atomic.Int64 // requests started, to stop at Requests
		wg       sync.WaitGroup
		lats     = make([][]time.Duration, l.Concurrency)
		lastDone = make([]time.Time, l.Concurrency)
	)
	start := time.Now()
	deadline := start.Add(d)
	for w := 0; w < l.Concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(deadline) {
				if l.Requests > 0 && issued.Add(1) > int64(l.Requests) {
					return
				}
				t0 := time.Now()
				if err := get(c, req0.WithContext(ctx), tg); err != nil {
					cancel(err)
					return
				}
				t1 := time.Now()
				lats[w] = append(lats[w], t1.Sub(t0))
				lastDone[w] = t1
			}
		}(w)
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return bench.Sample{}, err
		}
		if l.OnError != nil {
			if more := l.OnError(); more != "" {
				err = fmt.Errorf("%w\n%s", err, more)
			}
		}
		return bench.Sample{}, err
	}
	s := bench.Sample{Transport: t}
	end := start
	var sum time.Duration
	for w := range lats {
		s.Latencies = append(s.Latencies, lats[w]...)
		for _, x := range lats[w] {
			sum += x
		}
		if lastDone[w].After(end) {
			end = lastDone[w]
		}
	}
	s.Queries = int64(len(s.Latencies))
	s.Elapsed = end.Sub(start)
	if s.Queries > 0 {
		s.MeanLatency = sum / time.Duration(s.Queries)
	}
	return s, nil
}

// get sends one request and checks its answer; the body is read to the
// end so the connection goes back to the pool.
func get(c *http.Client, req *http.Request, tg Target) error {
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("GET %s: reading the body: %w", tg.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s%s: %s: %.200q", tg.URL, via(tg), resp.Status, body)
	}
	if tg.WantTransport != "" && resp.Header.Get(TransportHeader) != tg.WantTransport {
		return fmt.Errorf("GET %s%s: the backend answered over %q, want %q (%s)", tg.URL, via(tg),
			resp.Header.Get(TransportHeader), tg.WantTransport, TransportHeader)
	}
	if tg.WantBody != "" && string(body) != tg.WantBody {
		return fmt.Errorf("GET %s%s: unexpected body %.200q", tg.URL, via(tg), body)
	}
	return nil
}

func via(tg Target) string {
	if tg.Socket == "" {
		return ""
	}
	return " via " + tg.Socket
}
