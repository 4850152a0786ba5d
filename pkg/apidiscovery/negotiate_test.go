package apidiscovery

import (
	"errors"
	"net/http"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func TestNegotiate(t *testing.T) {
	for _, tc := range []struct {
		accept string
		want   Output
	}{
		{"", Output{Media: MediaJSON}},
		{"application/json", Output{Media: MediaJSON}},
		{"*/*", Output{Media: MediaJSON}},
		{"application/yaml", Output{Media: MediaYAML}},
		{AcceptAggregated, Output{Media: MediaJSON, Aggregated: true}},
		// kubectl's protobuf discovery.
		{"application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json", Output{Media: MediaProtobuf, Aggregated: true}},
		// An aggregated clause wins wherever it is, as in kube's wrapper.
		{"application/json,application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", Output{Media: MediaYAML, Aggregated: true}},
		// v2beta1 is gone in 1.37: its clause is skipped.
		{"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json", Output{Media: MediaJSON}},
		{"text/html,application/*;q=0.9", Output{Media: MediaJSON}},
	} {
		got, err := Negotiate(tc.accept)
		if err != nil || got != tc.want {
			t.Errorf("Negotiate(%q) = %+v, %v; want %+v", tc.accept, got, err, tc.want)
		}
	}
}

func TestNegotiateNotAcceptable(t *testing.T) {
	for _, accept := range []string{
		"text/html",
		"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
		"application/json;as=Table;v=v1;g=meta.k8s.io",
		"application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList",
		"application/json;sv=v1",
	} {
		_, err := Negotiate(accept)
		var status apierrors.APIStatus
		if !errors.As(err, &status) || status.Status().Code != http.StatusNotAcceptable ||
			!apierrors.IsNotAcceptable(err) {
			t.Errorf("Negotiate(%q) = %v, want kube's 406 NotAcceptable", accept, err)
		}
	}
}
