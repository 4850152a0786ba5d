package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/kubesplit/kubesplit/pkg/tracing"
)

// StartTimeout bounds a service's start from main: long enough for an
// embedded etcd to come up, short enough that a stuck start is an error.
const StartTimeout = time.Minute

// Service is what a service's Start returns.
type Service interface {
	URL() string
	Close()
}

// Flags are the flags every service has: where it listens and how it
// reports that it does.
type Flags struct {
	Endpoint
	ListenFD    int
	AddressFile string
	// TracingEdge marks the service that clients call (the aggregator):
	// their trace context is continued but their sampling decision not
	// trusted (see package tracing). Not a flag.
	TracingEdge bool
	// ProbeURL, when set, makes Main check that URL (see Probe) and exit
	// instead of serving: the health check of an image without a shell.
	ProbeURL string
}

// AddFlags registers the common flags on fs, with defaultBind as
// --bind-address's default.
func (f *Flags) AddFlags(fs *pflag.FlagSet, defaultBind string) {
	fs.StringVar(&f.BindAddress, "bind-address", defaultBind,
		"host:port to serve on (port 0 picks a free port); the stack's defaults are aggregator 6443, registry 6444, authz 6445, authn 6446, admission 6447")
	fs.IntVar(&f.ListenFD, "listen-fd", 0, "serve on this inherited listening socket instead of --bind-address (for supervisors and tests that reserve the port)")
	fs.StringVar(&f.TLSCertFile, "tls-cert-file", "", "PEM serving certificate (with --tls-private-key-file): serve HTTPS and HTTP/2 instead of plain HTTP")
	fs.StringVar(&f.TLSPrivateKeyFile, "tls-private-key-file", "", "PEM private key of --tls-cert-file")
	fs.StringVar(&f.AddressFile, "address-file", "", "write the URL served to this file once listening")
	fs.StringVar(&f.ProbeURL, "probe-url", "",
		"instead of serving, GET this URL (such as https://127.0.0.1:6444/readyz) and exit 0 if it answers 2xx, 1 otherwise: a health check for images without a shell")
	f.Limits.addFlags(fs)
}

// AddClientCAFlag registers --client-ca-file, for a service whose
// webhook endpoints take outside callers (kube-apiserver) by certificate.
func (f *Flags) AddClientCAFlag(fs *pflag.FlagSet) {
	fs.StringVar(&f.ClientCAFile, "client-ca-file", "",
		"PEM CA bundle: outside callers of the webhook endpoints (a kube-apiserver) may present a client certificate it signed "+
			"(CN the user, O the groups); needs --tls-cert-file")
}

// Complete opens the inherited socket --listen-fd names, if any.
func (f *Flags) Complete() error {
	if f.ListenFD <= 0 {
		return nil
	}
	ln, err := InheritedListener(f.ListenFD)
	if err != nil {
		return err
	}
	f.Listener = ln
	return nil
}

// Main runs a service from its main function: it parses the command line
// into fs (exit 0 for --help, 2 for a bad flag), calls start with a bounded
// context, writes the URL to --address-file, and closes the service on
// SIGINT or SIGTERM. It returns only for --help; everything else exits.
func Main(name string, fs *pflag.FlagSet, flags *Flags, start func(ctx context.Context) (Service, error)) {
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return
		}
		os.Exit(2)
	}
	if flags.ProbeURL != "" {
		if err := Probe(context.Background(), flags.ProbeURL); err != nil {
			fmt.Fprintf(os.Stderr, "%s: probe: %v\n", name, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if err := run(name, flags, start); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

func run(name string, flags *Flags, start func(ctx context.Context) (Service, error)) error {
	if err := flags.Complete(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	flushTraces, err := tracing.Setup(ctx, serviceName(name), tracing.Options{Edge: flags.TracingEdge})
	if err != nil {
		return err
	}
	defer func() {
		// After the server closed (deferred later, so run first): the
		// spans of the last requests go out too.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = flushTraces(fctx)
	}()
	startCtx, cancel := context.WithTimeout(ctx, StartTimeout)
	srv, err := start(startCtx)
	cancel()
	if err != nil {
		return err
	}
	defer srv.Close()
	slog.Info(name+" serving", "url", srv.URL())
	if flags.AddressFile != "" {
		if err := os.WriteFile(flags.AddressFile, []byte(srv.URL()+"\n"), 0o644); err != nil {
			return err
		}
	}
	<-ctx.Done()
	slog.Info(name + " shutting down")
	return nil
}

// serviceName is the service.name of a service's spans: kubesplit-<name>,
// or kubesplit for the fused binary.
func serviceName(name string) string {
	if name == "kubesplit" {
		return name
	}
	return "kubesplit-" + name
}
