package config

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"
)

func TestParseDefaults(t *testing.T) {
	c, err := Parse([]string{"--op", "get"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Op: OpGet, Concurrency: 16, Duration: 20 * time.Second, Objects: 100, Size: 1024,
		Watchers: 50, Updates: 200, ContentType: ContentJSON, Output: OutputText, Namespace: c.Namespace}
	if c != want {
		t.Errorf("defaults = %+v, want %+v", c, want)
	}
	if !strings.HasPrefix(c.Namespace, "load-") || len(c.Namespace) != len("load-")+5 {
		t.Errorf("default namespace = %q, want load-<5 random>", c.Namespace)
	}
}

func TestParseAll(t *testing.T) {
	c, err := Parse(strings.Fields("--kubeconfig /k --op watch --concurrency 2 --duration 5s --objects 3 --size 9 "+
		"--namespace ns --watchers 7 --updates 11 --content-type protobuf --qps 50 --output json"), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Kubeconfig: "/k", Op: OpWatch, Concurrency: 2, Duration: 5 * time.Second, Objects: 3, Size: 9,
		Namespace: "ns", Watchers: 7, Updates: 11, ContentType: ContentProtobuf, QPS: 50, Output: OutputJSON}
	if c != want {
		t.Errorf("parsed = %+v, want %+v", c, want)
	}
}

func TestParseRejects(t *testing.T) {
	for _, args := range []string{
		"",
		"--op delete",
		"--op get --concurrency 0",
		"--op get --duration 0s",
		"--op get --objects 0",
		"--op update --objects 4 --concurrency 8",
		"--op mixed --objects 4 --concurrency 8",
		"--op watch --watchers 0",
		"--op get --content-type yaml",
		"--op get --output xml",
		"--op get --qps -1",
		"--op get extra",
	} {
		_, err := Parse(strings.Fields(args), &bytes.Buffer{})
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %v, want ErrInvalid", args, err)
		}
	}
	// The seed count does not matter to a workload that seeds nothing.
	if _, err := Parse(strings.Fields("--op create --objects 0"), &bytes.Buffer{}); err != nil {
		t.Errorf("create with --objects 0: %v", err)
	}
}

func TestParseHelp(t *testing.T) {
	var out bytes.Buffer
	_, err := Parse([]string{"--help"}, &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("Parse(--help) = %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"Usage: load --kubeconfig", "mixed   70% get", "-content-type", "Exit status"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}
