package admission

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/kubesplit/kubesplit/services/admission/internal/kubeplugin"
)

// TolerationSeconds are how long DefaultTolerationSeconds lets a pod stay
// on a node that became not-ready or unreachable: kube-apiserver's
// --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds.
type TolerationSeconds struct {
	NotReady, Unreachable int64
}

// DefaultTolerationSecondsValue is kube's default for both: five minutes.
const DefaultTolerationSecondsValue = 300

// AddFlags registers kube's two flags, with its defaults and help, into t.
func (t *TolerationSeconds) AddFlags(fs *pflag.FlagSet) {
	fs.Int64Var(&t.NotReady, "default-not-ready-toleration-seconds", DefaultTolerationSecondsValue,
		"Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default to every pod that does not already have such a toleration.")
	fs.Int64Var(&t.Unreachable, "default-unreachable-toleration-seconds", DefaultTolerationSecondsValue,
		"Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by default to every pod that does not already have such a toleration.")
}

// apply hands t (nil: the defaults) to kube's plugin, which reads them
// when it is built.
func (t *TolerationSeconds) apply() error {
	v := TolerationSeconds{NotReady: DefaultTolerationSecondsValue, Unreachable: DefaultTolerationSecondsValue}
	if t != nil {
		v = *t
	}
	if v.NotReady < 0 || v.Unreachable < 0 {
		return fmt.Errorf("%w: negative default toleration seconds (%d, %d)", ErrInvalidConfig, v.NotReady, v.Unreachable)
	}
	return kubeplugin.SetTolerationSeconds(v.NotReady, v.Unreachable)
}
