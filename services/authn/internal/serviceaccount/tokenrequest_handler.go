package serviceaccount

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/request"
)

// defaultMaxBodyBytes bounds a TokenRequest body; a real one is a few
// hundred bytes.
const defaultMaxBodyBytes = 1 << 20

// serviceAccountsResource names the resource in NotFound and other Statuses.
var serviceAccountsResource = schema.GroupResource{Resource: "serviceaccounts"}

// TokenRequestHandlerConfig configures NewTokenRequestHandler.
type TokenRequestHandlerConfig struct {
	// Issuer signs the tokens. Required.
	Issuer *Issuer
	// Lookup finds the account and its uid. Required. Prefer
	// NewClientLookup: an account created a moment ago must be found.
	Lookup Lookup
	// MaxBodyBytes bounds the request body; zero means 1 MiB.
	MaxBodyBytes int64
}

// tokenRequestHandler serves the token subresource of service accounts.
type tokenRequestHandler struct {
	cfg   TokenRequestHandlerConfig
	codec *codec
}

// NewTokenRequestHandler returns the handler of
// POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token, kube's
// TokenRequest: it answers 201 with the TokenRequest, its spec defaulted and
// its status holding the token; 404 when the account does not exist; 422
// for a spec kube would refuse; 400 for a body that is not a TokenRequest;
// 503 with Retry-After when the account could not be looked up (nothing was
// written, so a retry is safe). Whether the caller may ask is for the
// authorization stage in front of it to decide.
func NewTokenRequestHandler(cfg TokenRequestHandlerConfig) (http.Handler, error) {
	switch {
	case cfg.Issuer == nil:
		return nil, fmt.Errorf("%w: token request handler needs an issuer", authn.ErrInvalidConfig)
	case cfg.Lookup == nil:
		return nil, fmt.Errorf("%w: token request handler needs a lookup", authn.ErrInvalidConfig)
	case cfg.MaxBodyBytes < 0:
		return nil, fmt.Errorf("%w: token request MaxBodyBytes must not be negative", authn.ErrInvalidConfig)
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = defaultMaxBodyBytes
	}
	c, err := newCodec()
	if err != nil {
		return nil, err
	}
	return &tokenRequestHandler{cfg: cfg, codec: c}, nil
}

// ServeHTTP answers one TokenRequest.
func (h *tokenRequestHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	namespace, name, ok := tokenPath(r)
	if !ok {
		apierror.Write(w, apierrors.NewGenericServerResponse(http.StatusNotFound, "create", schema.GroupResource{}, "", "", 0, false))
		return
	}
	if r.Method != http.MethodPost {
		apierror.Write(w, apierrors.NewMethodNotSupported(schema.GroupResource{Resource: "serviceaccounts/token"}, r.Method))
		return
	}
	out, err := h.create(r, namespace, name)
	if err != nil {
		apierror.Write(w, err)
		return
	}
	if err := h.codec.write(w, r.Header.Get("Accept"), http.StatusCreated, out); err != nil {
		apierror.Write(w, err)
	}
}

// tokenPath reads the account's namespace and name from the request path,
// and false when the path is not a token subresource.
func tokenPath(r *http.Request) (namespace, name string, ok bool) {
	info := request.InfoOf(r)
	ok = info.IsResourceRequest && info.APIPrefix == "api" && info.APIGroup == "" && info.APIVersion == "v1" &&
		info.Resource == "serviceaccounts" && info.Subresource == "token" && len(info.Parts) == 3 &&
		info.Namespace != "" && info.Name != ""
	return info.Namespace, info.Name, ok
}

// create reads the request, finds the account and issues its token.
func (h *tokenRequestHandler) create(r *http.Request, namespace, name string) (*authenticationv1.TokenRequest, error) {
	req, err := h.read(r, namespace)
	if err != nil {
		return nil, err
	}
	uid, found, err := h.cfg.Lookup.ServiceAccount(r.Context(), namespace, name)
	if err != nil {
		return nil, lookupUnavailable(err)
	}
	if !found {
		return nil, apierrors.NewNotFound(serviceAccountsResource, name)
	}
	got, err := h.cfg.Issuer.issue(ServiceAccountRef{Namespace: namespace, Name: name, UID: uid}, req.Spec)
	if err != nil {
		return nil, issueError(err, name)
	}
	out := req.DeepCopy()
	out.Name, out.Namespace = name, namespace
	out.Spec = got.spec
	out.Status = authenticationv1.TokenRequestStatus{Token: got.token, ExpirationTimestamp: metav1.NewTime(got.expires)}
	return out, nil
}

// read decodes the body, which may not name another namespace than the URL.
func (h *tokenRequestHandler) read(r *http.Request, namespace string) (*authenticationv1.TokenRequest, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, h.cfg.MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d bytes", tooLarge.Limit))
	case err != nil:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("reading body: %v", err))
	}
	req, err := h.codec.decode(r.Header.Get("Content-Type"), body)
	if err != nil {
		return nil, err
	}
	if req.Namespace != "" && req.Namespace != namespace {
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return req, nil
}

// issueError maps the Issuer's errors to the Status kube would answer.
func issueError(err error, name string) error {
	var invalid *invalidRequestError
	switch {
	case errors.As(err, &invalid):
		return apierrors.NewInvalid(tokenRequestKind.GroupKind(), name, invalid.errs)
	case errors.Is(err, ErrBindingUnsupported):
		return apierrors.NewBadRequest(err.Error())
	}
	return apierrors.NewInternalError(err)
}

// lookupUnavailable is a 503 the client may retry: TokenRequest writes
// nothing, so retrying cannot do anything twice.
func lookupUnavailable(err error) error {
	return apierror.Unavailable(fmt.Sprintf("cannot look up the service account: %v", err), 0)
}
