package apidiscovery

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
)

// Document is an aggregated discovery document ready to serve, with its
// ETag. It is immutable once built.
type Document struct {
	list apidiscoveryv2.APIGroupDiscoveryList
	etag string
}

// NewDocument returns the document listing groups, in the order given.
func NewDocument(groups []apidiscoveryv2.APIGroupDiscovery) *Document {
	if groups == nil {
		groups = []apidiscoveryv2.APIGroupDiscovery{}
	}
	d := &Document{list: apidiscoveryv2.APIGroupDiscoveryList{Items: groups}}
	d.etag = etagOf(&d.list)
	return d
}

// Groups are the document's groups; callers must not modify them.
func (d *Document) Groups() []apidiscoveryv2.APIGroupDiscovery { return d.list.Items }

// ETag is the document's entity tag, unquoted: kube's, the upper-case hex
// SHA-512 of the list's JSON without its type, so that it changes exactly
// when what the document says does.
func (d *Document) ETag() string { return d.etag }

func etagOf(list *apidiscoveryv2.APIGroupDiscoveryList) string {
	data, err := json.Marshal(list)
	if err != nil {
		return "" // cannot happen for these types; served without an ETag
	}
	return fmt.Sprintf("%X", sha512.Sum512(data))
}
