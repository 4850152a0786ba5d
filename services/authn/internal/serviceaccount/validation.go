package serviceaccount

import (
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Token lifetimes kube-apiserver enforces on TokenRequest.
const (
	// DefaultExpirationSeconds is the lifetime of a token whose request does
	// not say (spec.expirationSeconds unset).
	DefaultExpirationSeconds = 3600
	// MinExpirationSeconds is the shortest lifetime that may be asked for;
	// kube refuses less as Invalid, so kubelets never refresh in a loop.
	MinExpirationSeconds = 600
	// maxExpirationSeconds is the longest lifetime that may be asked for.
	maxExpirationSeconds = 1 << 32
)

// invalidRequestError carries the fields a TokenRequest got wrong, so the
// handler can name them in a 422 Invalid Status.
type invalidRequestError struct {
	errs field.ErrorList
}

func (e *invalidRequestError) Error() string {
	return ErrInvalidTokenRequest.Error() + ": " + e.errs.ToAggregate().Error()
}

// Unwrap makes errors.Is(err, ErrInvalidTokenRequest) hold.
func (e *invalidRequestError) Unwrap() error { return ErrInvalidTokenRequest }

// withDefaults fills in what kube defaults: the lifetime, and the audiences
// (the issuer's default ones, normally the API server's own).
func withDefaults(spec authenticationv1.TokenRequestSpec, audiences []string) authenticationv1.TokenRequestSpec {
	if spec.ExpirationSeconds == nil {
		seconds := int64(DefaultExpirationSeconds)
		spec.ExpirationSeconds = &seconds
	}
	if len(spec.Audiences) == 0 {
		spec.Audiences = append([]string(nil), audiences...)
	}
	return spec
}

// validateSpec checks a defaulted spec as kube does, and also refuses empty
// and repeated audiences, which no relying party could mean.
func validateSpec(spec authenticationv1.TokenRequestSpec) error {
	var errs field.ErrorList
	path := field.NewPath("spec")
	seconds := *spec.ExpirationSeconds
	switch {
	case seconds < MinExpirationSeconds:
		errs = append(errs, field.Invalid(path.Child("expirationSeconds"), seconds, "may not specify a duration less than 10 minutes"))
	case seconds > maxExpirationSeconds:
		errs = append(errs, field.Invalid(path.Child("expirationSeconds"), seconds, "may not specify a duration larger than 2^32 seconds"))
	}
	seen := sets.New[string]()
	for i, aud := range spec.Audiences {
		switch {
		case aud == "":
			errs = append(errs, field.Required(path.Child("audiences").Index(i), "audiences must not be empty"))
		case seen.Has(aud):
			errs = append(errs, field.Duplicate(path.Child("audiences").Index(i), aud))
		}
		seen.Insert(aud)
	}
	if len(errs) > 0 {
		return &invalidRequestError{errs: errs}
	}
	return nil
}

// lifetime is the lifetime a valid spec gets: what it asks for, but no more
// than maxTTL when maxTTL is set.
func lifetime(spec authenticationv1.TokenRequestSpec, maxTTL time.Duration) time.Duration {
	d := time.Duration(*spec.ExpirationSeconds) * time.Second
	if maxTTL > 0 && d > maxTTL {
		return maxTTL
	}
	return d
}
