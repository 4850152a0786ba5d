// Command admission is kubesplit's admission stage: it answers the
// registry's AdmissionReviews, mutating then validating, with kube's
// built-in admission plugins. See package admission.
package main

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/admission/admission"
)

// options are the flags that name files rather than Config fields.
type options struct {
	identityKeyFile, kubeconfig string
}

func main() {
	cfg := admission.Config{}
	opts := options{}
	common := serve.Flags{}
	fs := pflag.NewFlagSet("admission", pflag.ContinueOnError)
	common.AddFlags(fs, "127.0.0.1:6447")
	common.AddClientCAFlag(fs)
	fs.StringVar(&opts.identityKeyFile, "identity-public-key-file", "",
		"PEM file of the registry's public key(s): reviews must carry its signed identity assertion (required unless --insecure-allow-unauthenticated)")
	fs.StringVar(&cfg.IdentityIssuer, "identity-issuer", admission.DefaultIdentityIssuer, "issuer the registry's assertions name")
	fs.BoolVar(&cfg.InsecureAllowUnauthenticated, "insecure-allow-unauthenticated", false,
		"answer reviews without an identity assertion (loopback --bind-address only; development and tests)")
	fs.StringVar(&opts.kubeconfig, "kubeconfig", "",
		"kubeconfig reaching the API through the aggregator as system:masters, for the plugins' informers (required)")
	fs.StringSliceVar(&cfg.EnablePlugins, "enable-admission-plugins", nil,
		"admission plugins to enable in addition to the default ones ("+strings.Join(admission.DefaultPlugins(), ", ")+
			"); all of them run in the order of "+strings.Join(admission.AllPlugins(), ", ")+", whatever the order here")
	fs.StringSliceVar(&cfg.DisablePlugins, "disable-admission-plugins", nil, "admission plugins to disable, default ones included")
	fs.StringSliceVar(&cfg.Controllers, "controllers", []string{"*"},
		"the plugins' controllers to run, in kube-controller-manager's syntax: '*' all, 'name' one, '-name' not that one "+
			"(resourcequota-controller: every quota's usage recounted); beside a kube-controller-manager, leave out what it runs")
	cfg.DefaultTolerations = &admission.TolerationSeconds{}
	cfg.DefaultTolerations.AddFlags(fs)
	serve.Main("admission", fs, &common, func(ctx context.Context) (serve.Service, error) {
		cfg.Endpoint = common.Endpoint
		if err := complete(&cfg, opts); err != nil {
			return nil, err
		}
		return admission.Start(ctx, cfg)
	})
}

// complete fills the parts of cfg that flags name files for.
func complete(cfg *admission.Config, opts options) error {
	if opts.kubeconfig == "" {
		return errors.New("--kubeconfig is required")
	}
	if opts.identityKeyFile != "" {
		keys, err := identity.LoadPublicKeys(opts.identityKeyFile)
		if err != nil {
			return err
		}
		cfg.IdentityKeys = keys
	}
	rc, err := clientcmd.BuildConfigFromFlags("", opts.kubeconfig)
	if err != nil {
		return err
	}
	cfg.RESTConfig = rc
	return nil
}
