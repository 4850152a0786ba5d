package kubeplugin

import (
	"strconv"

	"github.com/spf13/pflag"
	"k8s.io/kubernetes/plugin/pkg/admission/defaulttolerationseconds"
)

// SetTolerationSeconds sets the tolerationSeconds DefaultTolerationSeconds
// gives (kube's --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds) for the plugins built after
// it. Kube keeps them in its package's variables, set only through its
// flags, hence a flag set of its own; they are the process's, as in
// kube-apiserver.
func SetTolerationSeconds(notReady, unreachable int64) error {
	fs := pflag.NewFlagSet(defaulttolerationseconds.PluginName, pflag.ContinueOnError)
	defaulttolerationseconds.RegisterFlags(fs)
	return fs.Parse([]string{
		"--default-not-ready-toleration-seconds=" + strconv.FormatInt(notReady, 10),
		"--default-unreachable-toleration-seconds=" + strconv.FormatInt(unreachable, 10),
	})
}
