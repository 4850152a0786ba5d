package apiservice

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"k8s.io/client-go/transport"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/proxy"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

// checkTimeout bounds one discovery check of a backend, as kube's
// availability controller does.
const checkTimeout = 5 * time.Second

// checkUser is who discovery checks claim to be, as kube's aggregator
// does: system:masters, so that a backend's authorization never fails them.
const (
	checkUser  = "system:kube-aggregator"
	checkGroup = "system:masters"
)

// maxIdlePerBackend keeps connections to a busy backend open.
const maxIdlePerBackend = 64

// backend is one APIService's upstream and the proxy in front of it.
type backend struct {
	// key is what the backend was built from: a change rebuilds it.
	key    string
	up     *upstream.Upstream
	proxy  *proxy.Proxy
	cancel context.CancelFunc
	// checked is set once the first lookup and discovery check are done:
	// until then, availability is unknown rather than false.
	checked atomic.Bool
}

// backendKey is every field of s that its backend depends on.
func backendKey(s *apiService) string {
	svc := s.Spec.Service
	return fmt.Sprintf("%q %q %v %x %q %q %d", s.Annotations[URLAnnotation], s.Spec.Group+"/"+s.Spec.Version,
		s.Spec.InsecureSkipTLSVerify, s.Spec.CABundle, svc.Namespace, svc.Name, port(svc))
}

// newBackend builds the upstream and proxy of s, presenting clientCert
// (when not nil) to it, and starts checking it until stop.
func newBackend(ctx context.Context, s *apiService, clientCert *tls.Certificate, log *slog.Logger) (*backend, error) {
	base, err := backendURL(s)
	if err != nil {
		return nil, err
	}
	rt, err := backendTransport(s, clientCert)
	if err != nil {
		return nil, err
	}
	up, err := upstream.New(upstream.Config{
		Name: s.Name, URLs: []string{base}, Transport: rt, Log: log,
		HealthPath: "/apis/" + s.Spec.Group + "/" + s.Spec.Version, HealthHeader: checkHeader(),
		CheckTimeout: checkTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errInvalidBackend, err)
	}
	p, err := proxy.New(proxy.Config{Upstream: up, Decorate: setUserHeaders, Log: log})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	b := &backend{key: backendKey(s), up: up, proxy: p, cancel: cancel}
	go func() {
		up.Start(ctx)
		b.checked.Store(true)
	}()
	return b, nil
}

// backendURL is where s's backend listens: the URL annotation, or its
// service's cluster DNS name.
func backendURL(s *apiService) (string, error) {
	if raw, ok := s.Annotations[URLAnnotation]; ok {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return "", fmt.Errorf("%w: annotation %s must be https://host[:port], not %q", errInvalidBackend, URLAnnotation, raw)
		}
		return raw, nil
	}
	svc := s.Spec.Service
	host := svc.Name + "." + svc.Namespace + ".svc"
	return "https://" + net.JoinHostPort(host, strconv.Itoa(int(port(svc)))), nil
}

// port is the service's port, 443 unless given.
func port(svc *serviceReference) int32 {
	if svc.Port == nil {
		return 443
	}
	return *svc.Port
}

// backendTransport verifies the backend's certificate with the
// APIService's caBundle (the system's roots when empty), unless
// insecureSkipTLSVerify, and presents clientCert to it.
func backendTransport(s *apiService, clientCert *tls.Certificate) (*http.Transport, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: s.Spec.InsecureSkipTLSVerify}
	if len(s.Spec.CABundle) > 0 {
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(s.Spec.CABundle) {
			return nil, fmt.Errorf("%w: caBundle holds no PEM certificate", errInvalidBackend)
		}
	}
	if clientCert != nil {
		cfg.Certificates = []tls.Certificate{*clientCert}
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig, t.ForceAttemptHTTP2, t.MaxIdleConnsPerHost = cfg, true, maxIdlePerBackend
	return t, nil
}

// checkHeader is the identity of discovery checks.
func checkHeader() http.Header {
	r := &http.Request{Header: http.Header{}}
	transport.SetAuthProxyHeaders(r, checkUser, "", []string{checkGroup}, nil)
	return r.Header
}

// setUserHeaders is the proxy's Decorate hook: the caller (after
// impersonation) in the front-proxy headers, as kube's aggregator sends
// them. The proxy has stripped whatever the client sent in them.
func setUserHeaders(r *http.Request) error {
	u, ok := request.UserFrom(r.Context())
	if !ok {
		return errors.New("no authenticated user on the request")
	}
	extra := make(map[string][]string, len(u.Extra))
	for k, v := range u.Extra {
		extra[k] = v
	}
	transport.SetAuthProxyHeaders(r, u.Username, u.UID, u.Groups, extra)
	return nil
}

// unusable stands for an APIService whose backend cannot be built: its
// group version stays routed, as in kube, and answers 503.
type unusable struct{ err error }

func (u unusable) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	apierror.Write(w, apierror.Unavailable(u.err.Error(), 0))
}

// Get implements discovery.Backend.
func (u unusable) Get(context.Context, string) (*http.Response, error) { return nil, u.err }
