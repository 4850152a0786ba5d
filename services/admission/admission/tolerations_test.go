package admission

import (
	"testing"

	"github.com/spf13/pflag"
)

// The flags are kube-apiserver's, with its default of 300 seconds.
func TestTolerationFlags(t *testing.T) {
	var ts TolerationSeconds
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	ts.AddFlags(fs)
	if err := fs.Parse([]string{"--default-unreachable-toleration-seconds=60"}); err != nil {
		t.Fatal(err)
	}
	if ts != (TolerationSeconds{NotReady: 300, Unreachable: 60}) {
		t.Errorf("parsed %+v", ts)
	}
}
