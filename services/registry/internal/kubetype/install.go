package kubetype

// The built-in kinds' versions, internal types, conversions and defaulters,
// registered into legacyscheme.Scheme.
import _ "github.com/kubesplit/kubesplit/pkg/kubeapis"
