package health

import (
	"bufio"
	"errors"
	"io"
	"strings"
)

// ParseVerbose reads the checks of a ?verbose answer of Handler (or of
// kube-apiserver): each "[+]name ok" line is the name with a nil error,
// each "[-]name failed: reason" the name with the reason; other lines are
// skipped. It reads at most max bytes of r.
func ParseVerbose(r io.Reader, max int64) (map[string]error, error) {
	out := map[string]error{}
	sc := bufio.NewScanner(io.LimitReader(r, max))
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "[+]"); ok {
			if name, ok := strings.CutSuffix(name, " ok"); ok {
				out[name] = nil
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "[-]"); ok {
			name, reason, _ := strings.Cut(rest, " failed")
			reason = strings.TrimPrefix(reason, ": ")
			if reason == "" {
				reason = "failed"
			}
			out[name] = errors.New(reason)
		}
	}
	return out, sc.Err()
}
