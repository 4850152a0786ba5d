package webhook

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

func TestNegotiate(t *testing.T) {
	const (
		js    = runtime.ContentTypeJSON
		yaml  = runtime.ContentTypeYAML
		proto = runtime.ContentTypeProtobuf
	)
	supported := []string{js, yaml, proto}
	cases := []struct{ accept, want string }{
		{"", js},
		{"*/*", js},
		{"application/*", js},
		{"text/html", ""},
		{"garbage;;", ""},
		{proto, proto},
		// client-go's typed clients, old and new.
		{"application/vnd.kubernetes.protobuf, */*", proto},
		{"application/vnd.kubernetes.protobuf,application/json", proto},
		{"application/json, application/vnd.kubernetes.protobuf", js},
		{"application/json;q=0.5, application/vnd.kubernetes.protobuf", proto},
		{"application/vnd.kubernetes.protobuf;q=0.2, application/json;q=0.9", js},
		{"application/vnd.kubernetes.protobuf;q=0", ""}, // q=0: not acceptable
		{"application/vnd.kubernetes.protobuf;q=high, application/yaml", yaml},
		{"APPLICATION/YAML", yaml},
		// A Table is a conversion these endpoints do not make.
		{"application/json;as=Table;g=meta.k8s.io;v=v1, application/vnd.kubernetes.protobuf;q=0.1", proto},
		{"application/vnd.kubernetes.protobuf;stream=watch", ""},
		{"application/json;as=Table;g=meta.k8s.io;v=v1", ""},
	}
	for _, c := range cases {
		if got, ok := Negotiate(c.accept, supported); got != c.want || ok != (c.want != "") {
			t.Errorf("negotiate(%q) = %q, want %q", c.accept, got, c.want)
		}
	}
}
