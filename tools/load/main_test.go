package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestExitCodes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	cases := []struct {
		args string
		want int
	}{
		{"--help", exitOK},
		{"--op get --nosuchflag", exitUsage},
		{"--op nosuchop", exitUsage},
		{"--op get --kubeconfig " + missing, exitFailed},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		if got := run(strings.Fields(c.args), &stdout, &stderr); got != c.want {
			t.Errorf("run(%q) = %d, want %d; stderr:\n%s", c.args, got, c.want, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("run(%q) wrote %q to stdout, want only the report there", c.args, stdout.String())
		}
	}
}
