package apidiscovery

import (
	"net/http"
	"strings"

	"github.com/munnerz/goautoneg"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Media types discovery is written in, in kube's order of preference.
const (
	MediaJSON     = "application/json"
	MediaYAML     = "application/yaml"
	MediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// supported are the media types discovery speaks, as kube's 406 lists
// them.
var supported = []string{MediaJSON, MediaYAML, MediaProtobuf}

// AcceptAggregated is the Accept header client-go sends for discovery
// (aggregated v2, then v2beta1, then legacy JSON).
const AcceptAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList," +
	"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"

// Output is what a discovery request negotiated.
type Output struct {
	// Media is MediaJSON, MediaYAML or MediaProtobuf.
	Media string
	// Aggregated means the client takes an APIGroupDiscoveryList
	// (apidiscovery.k8s.io/v2) instead of the legacy document.
	Aggregated bool
}

// ContentType is the Content-Type of an answer in o: an aggregated one
// names its kind, as kube's does, so that clients tell it from a legacy
// document.
func (o Output) ContentType() string {
	if o.Aggregated {
		return o.Media + ";g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	}
	return o.Media
}

// Negotiate reads a discovery request's Accept header as kube's discovery
// handlers do: first, any clause asking for an apidiscovery.k8s.io/v2
// APIGroupDiscoveryList wins, wherever it is in the header; otherwise the
// first clause without a conversion picks the legacy document's media
// type; no header is legacy JSON. A header naming neither is kube's 406
// (NotAcceptable), as is one asking only for v2beta1, which kube 1.37 no
// longer serves.
func Negotiate(accept string) (Output, error) {
	if strings.TrimSpace(accept) == "" {
		return Output{Media: MediaJSON}, nil
	}
	clauses := goautoneg.ParseAccept(accept)
	for _, aggregated := range []bool{true, false} {
		for _, c := range clauses {
			if media, ok := matchClause(c, aggregated); ok {
				return Output{Media: media, Aggregated: aggregated}, nil
			}
		}
	}
	return Output{}, NotAcceptable()
}

// matchClause returns the media type a clause of the Accept header
// selects, when it asks for the aggregated document (aggregated) or for
// the legacy one. Parameters kube's discovery endpoints refuse (a server
// version, a stream other than watch) make the clause unacceptable.
func matchClause(c goautoneg.Accept, aggregated bool) (string, bool) {
	var g, v, as string
	for k, val := range c.Params {
		switch k {
		case "g":
			g = val
		case "v":
			v = val
		case "as":
			as = val
		case "sv":
			if val != "" {
				return "", false
			}
		case "stream":
			if val != "" && val != "watch" {
				return "", false
			}
		}
	}
	converts := g != "" || v != "" || as != ""
	if aggregated != converts {
		return "", false
	}
	if aggregated && (g != "apidiscovery.k8s.io" || v != "v2" || as != "APIGroupDiscoveryList") {
		return "", false
	}
	for _, s := range supported {
		typ, sub, _ := strings.Cut(s, "/")
		if (c.Type == typ && (c.SubType == sub || c.SubType == "*")) || (c.Type == "*" && c.SubType == "*") {
			return s, true
		}
	}
	return "", false
}

// NotAcceptable is kube's 406 for an Accept header discovery cannot
// answer.
func NotAcceptable() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotAcceptable, Reason: metav1.StatusReasonNotAcceptable,
		Message: "only the following media types are accepted: " + strings.Join(supported, ", "),
	}}
}

// legacyAPINotAcceptable is the 406 of kube's legacy /api, which go-restful
// serves: its message names the media types the route produces.
func legacyAPINotAcceptable() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotAcceptable, Reason: metav1.StatusReasonNotAcceptable,
		Message: "406: Not Acceptable\n\nAvailable representations: " + strings.Join(supported, ", "),
	}}
}

// asksDiscoveryGroup reports whether an Accept header asks for any
// apidiscovery.k8s.io document (v2 or another version), which kube's
// aggregated discovery handler answers rather than the legacy one.
func asksDiscoveryGroup(accept string) bool {
	for _, c := range goautoneg.ParseAccept(accept) {
		if c.Params["g"] == "apidiscovery.k8s.io" {
			return true
		}
	}
	return false
}
