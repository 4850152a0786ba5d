package validation

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// defaultServicePort is the port of a webhook service when none is given.
const defaultServicePort = 443

// serviceRef is the part of a webhook's service reference that is checked;
// admission webhooks and CRD conversion webhooks use different Go types
// for the same fields.
type serviceRef struct {
	namespace, name string
	path            *string
	port            *int32
}

// validateClientConfig checks how a webhook is called: by exactly one of a
// URL or an in-cluster service.
func validateClientConfig(rawURL *string, svc *serviceRef, p *field.Path) field.ErrorList {
	switch {
	case (rawURL == nil) == (svc == nil):
		return field.ErrorList{field.Required(p, "exactly one of url or service is required")}
	case rawURL != nil:
		return validateWebhookURL(*rawURL, p.Child("url"))
	default:
		return validateWebhookService(svc, p.Child("service"))
	}
}

// validateWebhookURL checks a webhook URL: https, with a host, and no user
// info, query or fragment, which the caller would not send or would leak.
func validateWebhookURL(raw string, p *field.Path) field.ErrorList {
	u, err := url.Parse(raw)
	if err != nil {
		return field.ErrorList{field.Invalid(p, raw, "url must be a valid URL: "+err.Error())}
	}
	var errs field.ErrorList
	if u.Scheme != "https" {
		errs = append(errs, field.Invalid(p, u.Scheme, "'https' is the only allowed URL scheme"))
	}
	if u.Host == "" {
		errs = append(errs, field.Invalid(p, u.Host, "host must be specified"))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(p, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, field.Invalid(p, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, field.Invalid(p, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// validateWebhookService checks a service reference: named, namespaced, a
// valid port, and a path of DNS-subdomain segments.
func validateWebhookService(svc *serviceRef, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if svc.name == "" {
		errs = append(errs, field.Required(p.Child("name"), "service name is required"))
	}
	if svc.namespace == "" {
		errs = append(errs, field.Required(p.Child("namespace"), "service namespace is required"))
	}
	port := int32(defaultServicePort)
	if svc.port != nil {
		port = *svc.port
	}
	if msgs := validation.IsValidPortNum(int(port)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if svc.path != nil {
		errs = append(errs, validateServicePath(*svc.path, p.Child("path"))...)
	}
	return errs
}

// validateServicePath checks the path of a service reference.
func validateServicePath(path string, p *field.Path) field.ErrorList {
	if path == "/" {
		return nil
	}
	if !strings.HasPrefix(path, "/") {
		return field.ErrorList{field.Invalid(p, path, "must start with a '/'")}
	}
	var errs field.ErrorList
	for i, step := range strings.Split(path[1:], "/") {
		if step == "" {
			errs = append(errs, field.Invalid(p, path, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range validation.IsDNS1123Subdomain(step) {
			errs = append(errs, field.Invalid(p, path, fmt.Sprintf("segment[%d]: %v", i, msg)))
		}
	}
	return errs
}

// reviewVersions are the review versions kube can send a webhook.
var reviewVersions = []string{"v1", "v1beta1"}

// validateReviewVersions checks the review versions a webhook accepts: at
// least one, no duplicates, and one kube can send.
func validateReviewVersions(versions []string, p *field.Path) field.ErrorList {
	accepted := strings.Join(reviewVersions, ", ")
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, "must specify one of "+accepted)}
	}
	var errs field.ErrorList
	seen, known := map[string]bool{}, false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		errs = append(errs, invalidEach(p.Index(i), v, validation.IsDNS1035Label(v))...)
		known = known || slices.Contains(reviewVersions, v)
	}
	if !known {
		errs = append(errs, field.Invalid(p, versions, fmt.Sprintf("must include at least one of %s", accepted)))
	}
	return errs
}
