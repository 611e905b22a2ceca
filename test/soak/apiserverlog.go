package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
)

// APIServerLog keeps kube-apiserver's log in a file and picks out the
// calls of the soak's webhook that failed: failing open (failurePolicy
// Ignore: the object was admitted unpatched), split into the answers the
// API server refused (an invalid response: a wrong uid, a patch it could
// not decode) and the calls that got no answer (a timeout, a connection
// that failed).
type APIServerLog struct {
	Path string

	mu          sync.Mutex
	f           *os.File
	partial     []byte
	tracking    bool
	before      int
	refused     []string
	unreachable []string
}

// Track starts picking out failed calls: those before it (the soak's own
// setup, before the webhook runs) are only counted.
func (l *APIServerLog) Track() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tracking = true
}

// NewAPIServerLog writes the log to path.
func NewAPIServerLog(path string) (*APIServerLog, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &APIServerLog{Path: path, f: f}, nil
}

// The API server's words for a failed call, and for an answer it refused
// (k8s.io/apiserver's mutating dispatcher).
var (
	failedCall     = []byte("Failed calling webhook, failing ")
	refusedAnswers = []string{"received invalid webhook response", "undecodable patch", "unsupported patch type"}
)

func (l *APIServerLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		line := l.partial[:i]
		if bytes.Contains(line, failedCall) && bytes.Contains(line, []byte(webhookName)) {
			l.note(string(line))
		}
		l.partial = l.partial[i+1:]
	}
	return l.f.Write(p)
}

func (l *APIServerLog) note(line string) {
	if !l.tracking {
		l.before++
		return
	}
	for _, r := range refusedAnswers {
		if strings.Contains(line, r) {
			l.refused = append(l.refused, line)
			return
		}
	}
	l.unreachable = append(l.unreachable, line)
}

// Failed returns the lines of the refused answers and of the calls that
// got none since Track, and how many calls failed before.
func (l *APIServerLog) Failed() (refused, unreachable []string, before int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.refused...), append([]string(nil), l.unreachable...), l.before
}

// Close closes the file.
func (l *APIServerLog) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.f.Close()
}
