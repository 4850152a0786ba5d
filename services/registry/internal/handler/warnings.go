package handler

import (
	"slices"
	"strconv"
)

// addWarnings keeps admission's warnings for the response. Writes retried
// on a conflict ask admission again, and deletecollection asks it from
// several workers, so it locks and drops repeats.
func (q *request) addWarnings(msgs []string) {
	if len(msgs) == 0 {
		return
	}
	q.warnMu.Lock()
	defer q.warnMu.Unlock()
	for _, m := range msgs {
		if !slices.Contains(q.warnings, m) {
			q.warnings = append(q.warnings, m)
		}
	}
}

// writeWarnings sends extra and admission's warnings as Warning headers,
// which kubectl prints; call it before the response begins.
func (q *request) writeWarnings(extra []string) {
	q.warnMu.Lock()
	defer q.warnMu.Unlock()
	for _, msg := range append(slices.Clone(extra), q.warnings...) {
		q.w.Header().Add("Warning", warningHeader(msg))
	}
}

// warningHeader is msg as the value of a Warning header, in the form kube
// sends (RFC 7234 code 299, no agent).
func warningHeader(msg string) string { return "299 - " + strconv.Quote(msg) }
