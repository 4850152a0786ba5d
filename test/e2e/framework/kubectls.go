package framework

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// VersionedKubectls finds the kubectl releases installed beside the one on
// the PATH as kubectl.1.27, kubectl.1.28, …, and returns their paths by
// version ("1.27"), so tests can check the API still serves clients that
// are a few releases behind.
func VersionedKubectls() (map[string]string, error) {
	onPath, err := exec.LookPath(kubectlPath())
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(onPath)
	if err != nil {
		return nil, err
	}
	matches, err := filepath.Glob(filepath.Join(filepath.Dir(real), "kubectl.1.*"))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, m := range matches {
		if fi, err := os.Stat(m); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			continue
		}
		out[strings.TrimPrefix(filepath.Base(m), "kubectl.")] = m
	}
	return out, nil
}

// SortedVersions returns the keys of a version map in release order.
func SortedVersions(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for v := range m {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return minor(out[i]) < minor(out[j]) })
	return out
}

func minor(v string) int {
	n := 0
	if i := strings.LastIndex(v, "."); i >= 0 {
		for _, c := range v[i+1:] {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int(c-'0')
		}
	}
	return n
}
